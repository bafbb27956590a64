// The router's C API as the core implements it, independent of any real
// router: plan shapes come from the layout alone, every tensor is checked
// and rewritten into compact views before a plugin sees it, and a plugin
// that reports an invalid layout or writes an inconsistent plan is caught
// (FRUGAL_ERR_INTERNAL naming the broken rule) instead of silently losing
// or duplicating tokens. The probe_router test plugin
// (tests/core/loader/probe_router_plugin.cpp) routes round-robin, breaks its
// layout or plan on request, and echoes the views it receives.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "test_helpers.hpp"

using namespace frugal;
using namespace frugal::test;

namespace {

constexpr frugal_device kCpu{FRUGAL_DEVICE_CPU, 0};
constexpr frugal_device kPinned{FRUGAL_DEVICE_CUDA_PINNED, 0};
constexpr frugal_device kGpu{FRUGAL_DEVICE_CUDA, 0};

// How a Tensor lays out its elements (defaults: compact host memory).
struct TensorLayout {
  std::vector<int64_t> strides = {};  // empty: compact row-major
  uint64_t byte_offset = 0;
  frugal_device device = kCpu;
  int64_t spare = 0;  // elements of storage past the view, filled with 0xFF bytes (int64 -1)
};

// A tensor that owns its host storage, zero-filled. Device tensors get no
// storage and an address that is not memory: the core must not touch
// device memory, and the probe refuses it.
class Tensor {
 public:
  Tensor(int32_t dtype, std::vector<int64_t> shape, TensorLayout layout = {})
      : shape_(std::move(shape)), strides_(std::move(layout.strides)) {
    view.struct_size = sizeof(frugal_tensor);
    view.dtype = dtype;
    view.ndim = static_cast<int32_t>(shape_.size());
    view.device = layout.device;
    view.byte_offset = layout.byte_offset;
    view.shape = shape_.data();
    view.strides = strides_.empty() ? nullptr : strides_.data();
    if (layout.device.type == FRUGAL_DEVICE_CUDA) {
      view.data = reinterpret_cast<void*>(uintptr_t{0x10000});
      return;
    }
    const size_t element = static_cast<size_t>(frugal_dtype_bits(dtype)) / 8;
    const size_t used = layout.byte_offset + static_cast<size_t>(span()) * element;
    const size_t spare = static_cast<size_t>(layout.spare) * element;
    storage_.assign((used + spare + 7) / 8, 0);
    std::memset(reinterpret_cast<char*>(storage_.data()) + used, 0xFF, spare);
    view.data = storage_.data();
  }
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;

  // The first element (data + byte_offset), where the plugin's view starts.
  template <class T = void>
  T* data() const {
    return reinterpret_cast<T*>(static_cast<char*>(view.data) + view.byte_offset);
  }

  frugal_tensor view{};

 private:
  // Elements from the first to one past the last.
  [[nodiscard]] int64_t span() const {
    int64_t n = 1;
    for (size_t i = 0; i < shape_.size(); ++i) n = strides_.empty() ? n * shape_[i] : n + (shape_[i] - 1) * strides_[i];
    return n;
  }

  std::vector<int64_t> shape_;
  std::vector<int64_t> strides_;
  std::vector<uint64_t> storage_;  // 8-byte aligned for every dtype
};

// ---------------------------------------------------------------- routers

host::ContextPtr probe_context() {
  auto context = host::make_context();
  host::check(frugal_context_load_plugin(context.get(), plugin_path("probe_router").c_str()));
  return context;
}

// Options from "name=value" settings, typed as a command line would be.
host::OptionsPtr options_of(const std::vector<const char*>& settings) {
  auto options = host::make_options();
  for (const std::string setting : settings) {
    const size_t eq = setting.find('=');
    host::check(frugal_options_set_parsed(options.get(), setting.substr(0, eq).c_str(), setting.c_str() + eq + 1));
  }
  return options;
}

// probe_router with 4 experts and k = 2 unless the settings say otherwise.
host::RouterPtr make_probe(frugal_context* context, const std::vector<const char*>& settings = {}) {
  return host::make_router(context, "probe_router", options_of(settings).get());
}

// The plans the tests route: T = 10 tokens, E = 4 experts, k = 2.
constexpr int64_t kTokens = 10;
const std::vector<const char*> kDropless{};                                            // R = 20
const std::vector<const char*> kRoomy{"drop_policy=position", "capacity_factor=1.0"};  // C = 5, R = 20, N = 19
const std::vector<const char*> kTight{"drop_policy=position", "capacity_factor=0.5"};  // C = 3, R = 12
const std::vector<const char*> kExpert{"choice=expert", "capacity_factor=1.0"};        // C = 3, R = 12

frugal_route_layout layout_of(const frugal_router* router) {
  frugal_route_layout layout{};
  layout.struct_size = sizeof layout;
  host::check(frugal_router_layout(router, &layout));
  return layout;
}

frugal_route_shape shape_of(const frugal_router* router, int64_t tokens) {
  frugal_route_shape shape{};
  shape.struct_size = sizeof shape;
  host::check(frugal_router_plan_shape(router, tokens, &shape));
  return shape;
}

// ------------------------------------------------------------------ plans

// Plan tensors' element counts, from the router's layout and shape.
enum class Count { slots, experts_plus_one, experts, rows, tokens_plus_one, two };

struct Member {
  const char* name;
  const frugal_tensor* frugal_route_plan::*field;
  int32_t dtype;
  Count count;
  bool token_choice_only;
};

constexpr Member kMembers[] = {
    {"expert_ids", &frugal_route_plan::expert_ids, FRUGAL_DTYPE_INT32, Count::slots, true},
    {"weights", &frugal_route_plan::weights, FRUGAL_DTYPE_FLOAT32, Count::slots, true},
    {"dropped", &frugal_route_plan::dropped, FRUGAL_DTYPE_UINT8, Count::slots, true},
    {"slot_row", &frugal_route_plan::slot_row, FRUGAL_DTYPE_INT64, Count::slots, true},
    {"expert_offsets", &frugal_route_plan::expert_offsets, FRUGAL_DTYPE_INT64, Count::experts_plus_one, false},
    {"expert_demand", &frugal_route_plan::expert_demand, FRUGAL_DTYPE_INT64, Count::experts, false},
    {"row_token", &frugal_route_plan::row_token, FRUGAL_DTYPE_INT64, Count::rows, false},
    {"row_weight", &frugal_route_plan::row_weight, FRUGAL_DTYPE_FLOAT32, Count::rows, false},
    {"token_offsets", &frugal_route_plan::token_offsets, FRUGAL_DTYPE_INT64, Count::tokens_plus_one, false},
    {"token_rows", &frugal_route_plan::token_rows, FRUGAL_DTYPE_INT64, Count::rows, false},
    {"mean_prob", &frugal_route_plan::mean_prob, FRUGAL_DTYPE_FLOAT32, Count::experts, false},
    {"losses", &frugal_route_plan::losses, FRUGAL_DTYPE_FLOAT32, Count::two, false},
};

const Member& member(const std::string& name) {
  for (const Member& m : kMembers)
    if (name == m.name) return m;
  FAIL("no plan member " << name);
  return kMembers[0];
}

// A plan's tensors, compact 1-D host tensors sized by frugal_router_plan_shape
// (the token-choice ones absent for expert choice).
class PlanTensors {
 public:
  PlanTensors(const frugal_router* router, int64_t tokens, frugal_device device = kCpu)
      : layout(layout_of(router)), shape(shape_of(router, tokens)) {
    plan.struct_size = sizeof plan;
    const bool token_choice = layout.choice == FRUGAL_ROUTER_TOKEN_CHOICE;
    for (const Member& m : kMembers) {
      if (m.token_choice_only && !token_choice) {
        tensors_.emplace_back();
        continue;
      }
      tensors_.push_back(
          std::make_unique<Tensor>(m.dtype, std::vector<int64_t>{count(m)}, TensorLayout{.device = device}));
      plan.*m.field = &tensors_.back()->view;
    }
  }

  [[nodiscard]] int64_t count(const Member& m) const {
    switch (m.count) {
      case Count::slots: return shape.tokens * layout.top_k;
      case Count::experts_plus_one: return layout.experts + 1;
      case Count::experts: return layout.experts;
      case Count::rows: return shape.max_rows;
      case Count::tokens_plus_one: return shape.tokens + 1;
      case Count::two: return 2;
    }
    return 0;
  }

  // The values the plugin wrote into member `name`.
  template <class T>
  std::vector<T> values(const char* name) const {
    const Member& m = member(name);
    const T* begin = tensors_[static_cast<size_t>(&m - kMembers)]->data<T>();
    return std::vector<T>(begin, begin + count(m));
  }

  // This plan with member `name` replaced by `tensor` (NULL allowed).
  [[nodiscard]] frugal_route_plan with(const char* name, const frugal_tensor* tensor) const {
    frugal_route_plan changed = plan;
    changed.*member(name).field = tensor;
    return changed;
  }

  frugal_route_layout layout;
  frugal_route_shape shape;
  frugal_route_plan plan{};

 private:
  std::vector<std::unique_ptr<Tensor>> tensors_;  // in kMembers' order; NULL where absent
};

frugal_error* route(frugal_router* router, const Tensor& logits, const frugal_route_plan& plan) {
  const frugal_route_args args{sizeof args, &logits.view, &plan, nullptr};
  return frugal_router_route(router, &args);
}

// Logits for `tokens` tokens, one column per expert (the probe ignores their values).
Tensor logits_for(int64_t tokens, int64_t experts = 4, TensorLayout layout = {}) {
  return Tensor(FRUGAL_DTYPE_FLOAT32, {tokens, experts}, std::move(layout));
}

using MoveFn = frugal_error* (*)(frugal_router*, const frugal_route_move_args*);

frugal_error* move_rows(MoveFn fn, frugal_router* router, const frugal_route_plan& plan, const frugal_tensor& input,
                        const frugal_tensor& output) {
  const frugal_route_move_args args{sizeof args, &plan, &input, &output, nullptr};
  return fn(router, &args);
}

frugal_error* stats_into(const frugal_router* router, const frugal_route_plan& plan, frugal_route_stats& stats) {
  stats.struct_size = sizeof stats;
  return frugal_router_stats(router, &plan, &stats);
}

frugal_route_stats stats_of(const frugal_router* router, const frugal_route_plan& plan) {
  frugal_route_stats stats{};
  host::check(stats_into(router, plan, stats));
  return stats;
}

// ------------------------------------------------------------------ echoes

// The probe's echo of a call that reached it.
std::string echo_of(frugal_error* error) { return probe_echo(error); }

// The probe's format for one view: " name=2d 10x4 s6,1 t1 @ADDRESS dev1 +0"
// (ndim, shape, strides, dtype, data, device type, byte_offset).
std::string view_text(const std::string& name, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                      int32_t dtype, const void* data, int device = FRUGAL_DEVICE_CPU) {
  std::string text = " " + name + "=" + std::to_string(shape.size()) + "d";
  for (size_t i = 0; i < shape.size(); ++i) text += (i == 0 ? " " : "x") + std::to_string(shape[i]);
  for (size_t i = 0; i < strides.size(); ++i) text += (i == 0 ? " s" : ",") + std::to_string(strides[i]);
  char rest[96];
  std::snprintf(rest, sizeof rest, " t%d @%p dev%d +0", static_cast<int>(dtype), data, device);
  return text + rest;
}

using Catch::Matchers::Contains;

// Small integers only: their float bits end in 16 zero bits.
uint16_t bfloat16_of(float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return static_cast<uint16_t>(bits >> 16);
}

int64_t exported_load(frugal_router* router) {
  int64_t value = -1;
  size_t size = 0;
  host::check(frugal_router_export_state(router, &value, sizeof value, &size));
  REQUIRE(size == sizeof value);
  return value;
}

}  // namespace

TEST_CASE("plan shapes follow the layout's formulas; layouts come back as the plugin reported them") {
  auto context = probe_context();
  struct Case {
    std::vector<const char*> settings;
    int64_t tokens, capacity, max_rows;
  };
  for (const Case& c : {
           Case{kDropless, 10, 0, 20},                                            // R = T * k
           Case{{"k=3", "experts=8"}, 1, 0, 3},                                   // a single token
           Case{kRoomy, 10, 5, 20},                                               // C = ceil(20 / 4); R = min(20, 20)
           Case{kTight, 10, 3, 12},                                               // C = ceil(2.5); R = min(20, 12)
           Case{{"drop_policy=probability", "capacity_factor=1.25"}, 10, 7, 20},  // ceil(6.25); min(20, 28)
           Case{{"drop_policy=probability", "capacity_factor=0.01"}, 10, 1, 4},   // max(1, ceil(0.05))
           Case{kExpert, 10, 3, 12},                                              // C = ceil(10 / 4); R = E * C
           Case{{"choice=expert", "capacity_factor=8"}, 10, 10, 40},              // ceil(20) clamped to T
           Case{{"choice=expert", "capacity_factor=0.01"}, 10, 1, 4},             // at least 1
       }) {
    auto router = make_probe(context.get(), c.settings);
    const frugal_route_shape shape = shape_of(router.get(), c.tokens);
    INFO("settings[0] " << (c.settings.empty() ? "-" : c.settings[0]) << ", T " << c.tokens);
    CHECK(shape.tokens == c.tokens);
    CHECK(shape.capacity == c.capacity);
    CHECK(shape.max_rows == c.max_rows);
  }

  auto router =
      make_probe(context.get(), {"experts=6", "k=3", "drop_policy=probability", "capacity_factor=0.5", "bias=true"});
  const frugal_route_layout layout = layout_of(router.get());
  CHECK(layout.struct_size == sizeof layout);
  CHECK(layout.choice == FRUGAL_ROUTER_TOKEN_CHOICE);
  CHECK(layout.experts == 6);
  CHECK(layout.top_k == 3);
  CHECK(layout.drop_policy == FRUGAL_ROUTER_DROP_BY_PROBABILITY);
  CHECK(layout.capacity_factor == 0.5);
  CHECK(layout.flags == FRUGAL_ROUTE_LAYOUT_BIAS);

  frugal_route_shape shape{};
  shape.struct_size = sizeof shape;
  expect_error(frugal_router_plan_shape(router.get(), 0, &shape), FRUGAL_ERR_INVALID_ARGUMENT, {"tokens 0"});
  expect_error(frugal_router_plan_shape(router.get(), -3, &shape), FRUGAL_ERR_INVALID_ARGUMENT, {"tokens -3"});
  expect_error(frugal_router_plan_shape(router.get(), int64_t{1} << 33, &shape), FRUGAL_ERR_INVALID_ARGUMENT,
               {"tokens 8589934592"});  // past what a plan may index

  // A caller's smaller (older) struct gets only what fits; one too small for any field is refused.
  frugal_route_layout small_layout{};
  small_layout.struct_size = offsetof(frugal_route_layout, top_k);
  small_layout.top_k = 77;
  host::check(frugal_router_layout(router.get(), &small_layout));
  CHECK(small_layout.experts == 6);
  CHECK(small_layout.top_k == 77);
  frugal_route_shape small_shape{};
  small_shape.struct_size = offsetof(frugal_route_shape, max_rows);
  small_shape.max_rows = -7;
  host::check(frugal_router_plan_shape(router.get(), 10, &small_shape));
  CHECK(small_shape.capacity == 3);  // ceil(10 * 3 * 0.5 / 6)
  CHECK(small_shape.max_rows == -7);
  small_shape.struct_size = sizeof(size_t);
  expect_error(frugal_router_plan_shape(router.get(), 10, &small_shape), FRUGAL_ERR_INVALID_ARGUMENT, {"struct_size"});
}

TEST_CASE("a plugin's invalid layout is refused at creation, naming the field") {
  auto context = probe_context();
  struct Case {
    const char* fault;
    const char* mention;
  };
  for (const Case c :
       {Case{"experts0", "0 experts"}, Case{"experts_huge", "1048577 experts"}, Case{"k_zero", "top_k 0 for 4 experts"},
        Case{"k_too_big", "top_k 5 for 4 experts"}, Case{"bad_choice", "choice 7"}, Case{"bad_drop", "drop policy 3"},
        Case{"expert_k", "top_k 2 for expert choice"}, Case{"expert_drop", "drop policy 2 for expert choice"},
        Case{"nan_factor", "capacity factor nan with by_position"},
        Case{"inf_factor", "capacity factor inf with by_probability"},
        Case{"zero_factor", "capacity factor 0 with expert choice"},
        Case{"factor_while_dropless", "capacity factor 1.5 while dropless"},
        Case{"unknown_flag", "unknown flags 0x6"}}) {
    INFO(c.fault);
    const std::string setting = std::string("layout_fault=") + c.fault;
    frugal_router* router = nullptr;
    expect_error(frugal_router_create(context.get(), "probe_router", options_of({setting.c_str()}).get(), &router),
                 FRUGAL_ERR_INTERNAL, {"router 'probe_router'", "invalid layout", c.mention});
    CHECK(router == nullptr);
  }
  // The plugin's own option errors come back with the router's label.
  frugal_router* router = nullptr;
  expect_error(frugal_router_create(context.get(), "probe_router", options_of({"colour=red"}).get(), &router),
               FRUGAL_ERR_INVALID_ARGUMENT, {"router 'probe_router'", "colour"});
  CHECK(router == nullptr);
}

TEST_CASE("correct plans pass the host-plan check, move rows both ways, and give the right statistics") {
  auto context = probe_context();
  constexpr int64_t kHidden = 3;
  struct Case {
    const char* what;
    std::vector<const char*> settings;
    std::vector<int64_t> expert_offsets;
    frugal_route_stats expected;
  };
  // Token t picks experts t % 4 and (t + 1) % 4: demand 5, 6, 5, 4 (max 6, mean 5).
  // With capacity 5, expert 1 drops its last token (9). Expert choice: 3 tokens each.
  for (const Case& c : {
           Case{"dropless", kDropless, {0, 5, 11, 16, 20}, {0, 10, 20, 20, 0, 6, 1.2, 0.0, 0.25f, 0.125f}},
           Case{"by position", kRoomy, {0, 5, 10, 15, 19}, {0, 10, 20, 19, 1, 6, 1.2, 0.05, 0.25f, 0.125f}},
           Case{"expert choice", kExpert, {0, 3, 6, 9, 12}, {0, 10, 12, 12, 0, 3, 1.0, 0.0, 0.25f, 0.125f}},
       }) {
    INFO(c.what);
    auto router = make_probe(context.get(), c.settings);
    PlanTensors plan(router.get(), kTokens);
    host::check(route(router.get(), logits_for(kTokens), plan.plan));
    CHECK(plan.values<int64_t>("expert_offsets") == c.expert_offsets);

    const frugal_route_stats s = stats_of(router.get(), plan.plan);
    CHECK(s.tokens == c.expected.tokens);
    CHECK(s.assignments == c.expected.assignments);
    CHECK(s.kept == c.expected.kept);
    CHECK(s.dropped == c.expected.dropped);
    CHECK(s.max_load == c.expected.max_load);
    CHECK(s.max_over_mean == Approx(c.expected.max_over_mean));
    CHECK(s.dropped_fraction == Approx(c.expected.dropped_fraction));
    CHECK(s.aux_loss == c.expected.aux_loss);
    CHECK(s.z_loss == c.expected.z_loss);

    // Permute then combine gives each token itself times its kept weight.
    Tensor x(FRUGAL_DTYPE_FLOAT32, {kTokens, kHidden});
    Tensor x_perm(FRUGAL_DTYPE_FLOAT32, {plan.shape.max_rows, kHidden});
    Tensor y(FRUGAL_DTYPE_FLOAT32, {kTokens, kHidden});
    for (int64_t i = 0; i < kTokens * kHidden; ++i) x.data<float>()[i] = static_cast<float>(i + 1);
    host::check(move_rows(frugal_router_permute, router.get(), plan.plan, x.view, x_perm.view));
    host::check(move_rows(frugal_router_combine, router.get(), plan.plan, x_perm.view, y.view));
    const auto token_offsets = plan.values<int64_t>("token_offsets");
    const auto token_rows = plan.values<int64_t>("token_rows");
    const auto row_weight = plan.values<float>("row_weight");
    for (int64_t t = 0; t < kTokens; ++t) {
      float kept = 0.0f;
      for (int64_t i = token_offsets[t]; i < token_offsets[t + 1]; ++i) kept += row_weight[token_rows[i]];
      for (int64_t h = 0; h < kHidden; ++h)
        CHECK(y.data<float>()[t * kHidden + h] == Approx(kept * x.data<float>()[t * kHidden + h]));
    }
  }
}

namespace {

// Routes T = 10 tokens with the probe told to break its plan as `fault`
// says, and expects the core's host-plan check to refuse it.
void expect_refused(frugal_context* context, std::vector<const char*> settings, const char* fault,
                    std::initializer_list<const char*> mentions) {
  INFO("plan_fault " << fault);
  const std::string setting = std::string("plan_fault=") + fault;
  settings.push_back(setting.c_str());
  auto router = make_probe(context, settings);
  PlanTensors plan(router.get(), kTokens);
  // A readable element past token_rows: a checker that reads one past the
  // plan (the overrun gap below) then sees -1 instead of leaving the allocation.
  const Tensor token_rows(FRUGAL_DTYPE_INT64, {plan.shape.max_rows}, {.spare = 1});
  expect_error(route(router.get(), logits_for(kTokens), plan.with("token_rows", &token_rows.view)), FRUGAL_ERR_INTERNAL,
               mentions);
}

}  // namespace

TEST_CASE("every broken plan is refused with INTERNAL, naming the broken rule") {
  auto context = probe_context();
  // Expert 0 holds tokens 0, 3, 4, 7, 8 in rows 0-4; token 0's rows are 0
  // and 5, token 1's 6 and 11. Expert choice: expert e holds tokens e .. e + 2.
  struct BrokenPlan {
    const std::vector<const char*>& settings;
    const char* fault;
    const char* mention;
  };
  for (const BrokenPlan& c : {
           BrokenPlan{kDropless, "offsets_start", "expert_offsets[0] is 1, not 0"},
           BrokenPlan{kDropless, "offsets_fall", "expert_offsets fall from 5 to 4 at expert 1"},
           BrokenPlan{kDropless, "offsets_end", "expert_offsets[E] is 21; the plan holds 20 rows"},
           BrokenPlan{kDropless, "demand_low", "expert 0 kept 5 rows but was asked for 4"},
           BrokenPlan{kDropless, "demand_wrong", "expert_demand[0] is 6; 5 slots chose it"},
           BrokenPlan{kExpert, "demand_wrong", "expert_demand[0] is 4; expert choice asks 3"},
           BrokenPlan{kTight, "over_capacity", "expert 0 kept 4 rows; its capacity is 3"},
           BrokenPlan{kExpert, "expert_short", "expert 3 took 2 tokens; expert choice gives each 3"},
           BrokenPlan{kDropless, "bad_row_token", "row 0 names token 10 of 10"},
           BrokenPlan{kDropless, "tokens_not_rising", "expert 0's rows 0 and 1 hold tokens 3 and 0"},
           BrokenPlan{kExpert, "tokens_not_rising", "expert 0's rows 0 and 1 hold tokens 1 and 0"},
           BrokenPlan{kDropless, "nan_row_weight", "row 0 has weight nan"},
           BrokenPlan{kRoomy, "tail_not_blank", "unused row 19 (past the 19 kept)"},
           BrokenPlan{kDropless, "token_offsets_start", "token_offsets[0] is 1, not 0"},
           BrokenPlan{kDropless, "missing_token", "token_offsets[T] is 19; the plan kept 20 rows"},
           BrokenPlan{kDropless, "token_offsets_fall", "token_offsets fall from 2 to 1 at token 1"},
           BrokenPlan{kDropless, "token_rows_range", "token_rows[0] is -1; rows are 0 to 19"},
           BrokenPlan{kDropless, "duplicate_row", "row 0 appears twice in token_rows"},
           BrokenPlan{kDropless, "token_rows_mixed", "token_rows lists row 6 under token 0, but the row holds token 1"},
           BrokenPlan{kDropless, "token_rows_order", "token 0's rows in token_rows are not its kept slots' rows"},
           BrokenPlan{kExpert, "token_rows_order", "token 1's rows 3 and 1 are not in expert order"},
           BrokenPlan{kDropless, "bad_expert", "slot 0 names expert 4 of 4"},
           BrokenPlan{kDropless, "repeated_expert", "token 0 chose expert 0 twice"},
           BrokenPlan{kDropless, "nan_slot_weight", "slot 0 has weight nan"},
           BrokenPlan{kDropless, "dropped_value", "dropped[0] is 2; it must be 0 or 1"},
           BrokenPlan{kDropless, "dropped_mismatch", "slot 0 is dropped but slot_row names row 0"},
           BrokenPlan{kDropless, "dropped_row_kept", "19 slots are kept but the experts hold 20 rows"},
           BrokenPlan{kDropless, "slot_row_wrong_expert", "slot 0 (expert 0) has row 19, outside the expert's [0, 5)"},
           BrokenPlan{kDropless, "slot_row_wrong_token", "slot 0 of token 0 has row 1, which holds token 3"},
           BrokenPlan{kDropless, "weight_mismatch", "row 0 has weight 1 but its slot 0 has 0.5"},
           BrokenPlan{kDropless, "negative_mean_prob", "mean_prob[0] is -1"},
           BrokenPlan{kExpert, "nan_loss", "losses[1] is nan"},
       })
    expect_refused(context.get(), c.settings, c.fault, {"router 'probe_router'", "inconsistent plan", c.mention});
}

// Two plugin bugs the first version of the host-plan check missed.
TEST_CASE("a plan that drops an assignment it had room for is refused") {
  auto context = probe_context();
  // Token 9's second slot is dropped although its expert (2) has room for
  // it (5 asked, capacity 5), or the router is dropless: a silent token
  // loss. Each expert must keep min(demand, capacity) rows.
  SECTION("dropless") { expect_refused(context.get(), kDropless, "needless_drop", {"inconsistent plan", "dropped"}); }
  SECTION("with room") { expect_refused(context.get(), kRoomy, "needless_drop", {"inconsistent plan", "dropped"}); }
}

TEST_CASE("token_offsets running past the kept rows are refused before they are read") {
  auto context = probe_context();
  // token_offsets[T - 1] = N + 1 while tokens 6-9 hold no rows and N = R:
  // reading token_rows[N] would be one past the plan (found under ASan).
  expect_refused(context.get(), kExpert, "token_offsets_overrun", {"inconsistent plan", "token_offsets[9] is 13"});
}

TEST_CASE("route checks logits and plan tensors before the plugin runs, naming them") {
  auto context = probe_context();
  auto router = make_probe(context.get());
  PlanTensors plan(router.get(), kTokens);
  const Tensor logits = logits_for(kTokens);
  host::check(route(router.get(), logits, plan.plan));  // the good call

  SECTION("arguments and struct sizes") {
    expect_error(frugal_router_route(router.get(), nullptr), FRUGAL_ERR_INVALID_ARGUMENT, {"args"});
    frugal_route_args args{sizeof args, nullptr, &plan.plan, nullptr};
    expect_error(frugal_router_route(router.get(), &args), FRUGAL_ERR_INVALID_ARGUMENT, {"logits is NULL"});
    args = {sizeof args, &logits.view, nullptr, nullptr};
    expect_error(frugal_router_route(router.get(), &args), FRUGAL_ERR_INVALID_ARGUMENT, {"plan is NULL"});
    args = {offsetof(frugal_route_args, plan), &logits.view, &plan.plan, nullptr};
    expect_error(frugal_router_route(router.get(), &args), FRUGAL_ERR_ABI_MISMATCH, {"args->struct_size is 16"});
    args.struct_size = offsetof(frugal_route_args, stream);  // an older caller's struct without stream
    host::check(frugal_router_route(router.get(), &args));
    frugal_route_plan short_plan = plan.plan;
    short_plan.struct_size = offsetof(frugal_route_plan, losses);
    expect_error(route(router.get(), logits, short_plan), FRUGAL_ERR_ABI_MISMATCH, {"plan->struct_size is 96"});
  }
  SECTION("logits") {
    const Tensor ints(FRUGAL_DTYPE_INT32, {kTokens, 4});
    expect_error(route(router.get(), ints, plan.plan), FRUGAL_ERR_UNSUPPORTED, {"logits", "int32", "float32"});
    const Tensor halves(FRUGAL_DTYPE_FLOAT16, {kTokens, 4});
    host::check(route(router.get(), halves, plan.plan));
    expect_error(route(router.get(), logits_for(kTokens, 5), plan.plan), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"logits: 5 columns", "4 experts"});
    const Tensor collapsing(FRUGAL_DTYPE_FLOAT32, {2, 5, 4});
    host::check(route(router.get(), collapsing, plan.plan));  // T = 2 x 5
    const Tensor split(FRUGAL_DTYPE_FLOAT32, {2, 5, 4}, {.strides = {24, 4, 1}});
    expect_error(route(router.get(), split, plan.plan), FRUGAL_ERR_UNSUPPORTED, {"logits", "do not collapse"});
    // 12 tokens need a plan of 12: the plan for 10 is the wrong size.
    expect_error(route(router.get(), logits_for(12), plan.plan), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"plan.expert_ids", "holds 20 elements; this plan needs 24"});
  }
  SECTION("each plan tensor: NULL, dtype, element count, compactness, device") {
    for (const Member& m : kMembers) {
      INFO(m.name);
      const std::string name = std::string("plan.") + m.name;
      const int64_t n = plan.count(m);
      expect_error(route(router.get(), logits, plan.with(m.name, nullptr)), FRUGAL_ERR_INVALID_ARGUMENT,
                   {(name + " is NULL").c_str()});
      const Tensor doubles(FRUGAL_DTYPE_FLOAT64, {n});
      const std::string dtype = std::string("dtype float64, expected ") + frugal_dtype_name(m.dtype);
      expect_error(route(router.get(), logits, plan.with(m.name, &doubles.view)), FRUGAL_ERR_INVALID_ARGUMENT,
                   {name.c_str(), dtype.c_str()});
      const Tensor longer(m.dtype, {n + 1});
      const std::string counts = "holds " + std::to_string(n + 1) + " elements; this plan needs " + std::to_string(n);
      expect_error(route(router.get(), logits, plan.with(m.name, &longer.view)), FRUGAL_ERR_INVALID_ARGUMENT,
                   {name.c_str(), counts.c_str()});
      const Tensor padded(m.dtype, {n, 1}, {.strides = {2, 1}});
      expect_error(route(router.get(), logits, plan.with(m.name, &padded.view)), FRUGAL_ERR_UNSUPPORTED,
                   {name.c_str(), "must be compact", "row stride 2"});
      const Tensor on_gpu(m.dtype, {n}, {.device = kGpu});
      expect_error(route(router.get(), logits, plan.with(m.name, &on_gpu.view)), FRUGAL_ERR_INVALID_ARGUMENT,
                   {(name + " is on CUDA:0").c_str(), "CPU", "one device"});
    }
  }
  SECTION("expert choice ignores the token-choice tensors") {
    auto experts = make_probe(context.get(), kExpert);
    PlanTensors ec(experts.get(), kTokens);
    host::check(route(experts.get(), logits, ec.plan));  // they are NULL
    const Tensor garbage(FRUGAL_DTYPE_FLOAT64, {3});
    host::check(route(experts.get(), logits, ec.with("expert_ids", &garbage.view)));
  }
  SECTION("device plans reach the plugin unchecked; the probe refuses them") {
    PlanTensors on_gpu(router.get(), kTokens, kGpu);
    expect_error(route(router.get(), logits_for(kTokens, 4, {.device = kGpu}), on_gpu.plan), FRUGAL_ERR_UNSUPPORTED,
                 {"router 'probe_router'", "logits is on CUDA:0"});
  }
}

TEST_CASE("permute and combine check activations, rows and devices before the plugin runs") {
  auto context = probe_context();
  auto router = make_probe(context.get());
  PlanTensors plan(router.get(), kTokens);
  host::check(route(router.get(), logits_for(kTokens), plan.plan));
  constexpr int64_t kHidden = 8;
  const int64_t rows = plan.shape.max_rows;  // 20
  const Tensor x(FRUGAL_DTYPE_FLOAT32, {kTokens, kHidden});
  const Tensor x_perm(FRUGAL_DTYPE_FLOAT32, {rows, kHidden});
  const Tensor y(FRUGAL_DTYPE_FLOAT32, {kTokens, kHidden});
  host::check(move_rows(frugal_router_permute, router.get(), plan.plan, x.view, x_perm.view));
  host::check(move_rows(frugal_router_combine, router.get(), plan.plan, x_perm.view, y.view));

  SECTION("arguments") {
    expect_error(frugal_router_permute(router.get(), nullptr), FRUGAL_ERR_INVALID_ARGUMENT, {"args"});
    expect_error(frugal_router_combine(router.get(), nullptr), FRUGAL_ERR_INVALID_ARGUMENT, {"args"});
    frugal_route_move_args args{offsetof(frugal_route_move_args, output), &plan.plan, &x.view, &x_perm.view, nullptr};
    expect_error(frugal_router_permute(router.get(), &args), FRUGAL_ERR_ABI_MISMATCH, {"args->struct_size"});
    expect_error(move_rows(frugal_router_permute, router.get(), plan.with("row_token", nullptr), x.view, x_perm.view),
                 FRUGAL_ERR_INVALID_ARGUMENT, {"plan.row_token is NULL"});
  }
  SECTION("dtypes and hidden size") {
    const Tensor ints(FRUGAL_DTYPE_INT32, {kTokens, kHidden});
    expect_error(move_rows(frugal_router_permute, router.get(), plan.plan, ints.view, x_perm.view),
                 FRUGAL_ERR_UNSUPPORTED, {"input", "int32", "float32 or bfloat16"});
    const Tensor halves(FRUGAL_DTYPE_FLOAT16, {kTokens, kHidden});
    const Tensor halves_perm(FRUGAL_DTYPE_FLOAT16, {rows, kHidden});
    expect_error(move_rows(frugal_router_permute, router.get(), plan.plan, halves.view, halves_perm.view),
                 FRUGAL_ERR_UNSUPPORTED, {"input", "float16"});
    const Tensor bf16_perm(FRUGAL_DTYPE_BFLOAT16, {rows, kHidden});
    expect_error(move_rows(frugal_router_permute, router.get(), plan.plan, x.view, bf16_perm.view),
                 FRUGAL_ERR_INVALID_ARGUMENT, {"output: dtype bfloat16", "input's (float32)"});
    const Tensor wider(FRUGAL_DTYPE_FLOAT32, {rows, kHidden + 1});
    expect_error(move_rows(frugal_router_permute, router.get(), plan.plan, x.view, wider.view),
                 FRUGAL_ERR_INVALID_ARGUMENT, {"output: 9 columns", "the input has 8"});
  }
  SECTION("rows: permute writes R, combine reads R") {
    const Tensor too_many(FRUGAL_DTYPE_FLOAT32, {rows + 1, kHidden});
    expect_error(move_rows(frugal_router_permute, router.get(), plan.plan, x.view, too_many.view),
                 FRUGAL_ERR_INVALID_ARGUMENT, {"output: 21 rows; expected 20"});
    const Tensor too_few(FRUGAL_DTYPE_FLOAT32, {rows - 1, kHidden});
    expect_error(move_rows(frugal_router_combine, router.get(), plan.plan, too_few.view, y.view),
                 FRUGAL_ERR_INVALID_ARGUMENT, {"input: 19 rows; expected 20"});
  }
  SECTION("overlap and devices") {
    // The input's 10 rows are the first 10 of the output's 20: not in place.
    const int64_t first_rows[2] = {kTokens, kHidden};
    frugal_tensor aliased = x_perm.view;
    aliased.shape = first_rows;
    expect_error(move_rows(frugal_router_permute, router.get(), plan.plan, aliased, x_perm.view),
                 FRUGAL_ERR_INVALID_ARGUMENT, {"output overlaps input"});
    const Tensor on_gpu(FRUGAL_DTYPE_FLOAT32, {rows, kHidden}, {.device = kGpu});
    expect_error(move_rows(frugal_router_permute, router.get(), plan.plan, x.view, on_gpu.view),
                 FRUGAL_ERR_INVALID_ARGUMENT, {"output is on CUDA:0", "input is on CPU"});
    PlanTensors plan_on_gpu(router.get(), kTokens, kGpu);
    expect_error(move_rows(frugal_router_combine, router.get(), plan_on_gpu.plan, x_perm.view, y.view),
                 FRUGAL_ERR_INVALID_ARGUMENT, {"plan.expert_ids is on CUDA:0"});
  }
  SECTION("bfloat16 moves round-trip exactly") {
    const Tensor xb(FRUGAL_DTYPE_BFLOAT16, {kTokens, kHidden});
    const Tensor xb_perm(FRUGAL_DTYPE_BFLOAT16, {rows, kHidden});
    const Tensor yb(FRUGAL_DTYPE_BFLOAT16, {kTokens, kHidden});
    for (int64_t i = 0; i < kTokens * kHidden; ++i)  // small integers: exact in bfloat16, as is 0.5 v + 0.5 v
      xb.data<uint16_t>()[i] = bfloat16_of(static_cast<float>(i % 9 - 4));
    host::check(move_rows(frugal_router_permute, router.get(), plan.plan, xb.view, xb_perm.view));
    host::check(move_rows(frugal_router_combine, router.get(), plan.plan, xb_perm.view, yb.view));
    CHECK(std::memcmp(xb.data(), yb.data(), kTokens * kHidden * 2) == 0);
  }
}

TEST_CASE("the plugin receives normalised views: compact 1-D plan tensors, 2-D logits and activations") {
  auto context = probe_context();
  auto router = make_probe(context.get(), {"echo=true"});
  PlanTensors plan(router.get(), kTokens);

  SECTION("plan tensors of any shape arrive 1-D with strides {1}, offsets folded, pinned memory as CPU") {
    const Tensor ids(FRUGAL_DTYPE_INT32, {kTokens, 2});
    const Tensor row_token(FRUGAL_DTYPE_INT64, {4, 5}, {.byte_offset = 16});
    const Tensor pinned(FRUGAL_DTYPE_FLOAT32, {20}, {.device = kPinned});
    frugal_route_plan shaped = plan.with("expert_ids", &ids.view);
    shaped.row_token = &row_token.view;
    shaped.row_weight = &pinned.view;
    const std::string seen = echo_of(route(router.get(), logits_for(kTokens), shaped));
    CHECK_THAT(seen, Contains(view_text("plan.expert_ids", {20}, {1}, FRUGAL_DTYPE_INT32, ids.data())));
    CHECK_THAT(seen, Contains(view_text("plan.row_token", {20}, {1}, FRUGAL_DTYPE_INT64, row_token.data())));
    CHECK_THAT(seen, Contains(view_text("plan.row_weight", {20}, {1}, FRUGAL_DTYPE_FLOAT32, pinned.data())));
    const std::string plain = echo_of(route(router.get(), logits_for(kTokens), plan.plan));
    for (const Member& m : kMembers) {
      INFO(m.name);
      const auto* tensor = plan.plan.*m.field;
      CHECK_THAT(plain,
                 Contains(view_text(std::string("plan.") + m.name, {plan.count(m)}, {1}, m.dtype, tensor->data)));
    }
  }
  SECTION("logits: padded rows keep their stride, byte_offset is folded, pinned memory is CPU") {
    const Tensor padded = logits_for(kTokens, 4, {.strides = {6, 1}, .byte_offset = 8, .device = kPinned});
    const std::string seen = echo_of(route(router.get(), padded, plan.plan));
    CHECK_THAT(seen, Contains(view_text("logits", {kTokens, 4}, {6, 1}, FRUGAL_DTYPE_FLOAT32, padded.data())));
    const Tensor nd(FRUGAL_DTYPE_BFLOAT16, {2, 1, 5, 4});
    CHECK_THAT(echo_of(route(router.get(), nd, plan.plan)),
               Contains(view_text("logits", {kTokens, 4}, {4, 1}, FRUGAL_DTYPE_BFLOAT16, nd.data())));
  }
  SECTION("expert choice: the token-choice members arrive NULL even when given") {
    auto experts = make_probe(context.get(), {"echo=true", "choice=expert", "capacity_factor=1.0"});
    PlanTensors ec(experts.get(), kTokens);
    const Tensor ids(FRUGAL_DTYPE_INT32, {kTokens});
    const std::string seen = echo_of(route(experts.get(), logits_for(kTokens), ec.with("expert_ids", &ids.view)));
    for (const char* name : {"expert_ids", "weights", "dropped", "slot_row"})
      CHECK_THAT(seen, Contains(std::string(" plan.") + name + "=-"));
    CHECK_THAT(seen, Contains(view_text("plan.row_token", {12}, {1}, FRUGAL_DTYPE_INT64, ec.plan.row_token->data)));
  }
  SECTION("permute and combine: activations as 2-D views") {
    const Tensor x(FRUGAL_DTYPE_FLOAT32, {2, 5, 8}, {.strides = {60, 12, 1}, .byte_offset = 4});
    const Tensor x_perm(FRUGAL_DTYPE_FLOAT32, {20, 8});
    std::string seen = echo_of(move_rows(frugal_router_permute, router.get(), plan.plan, x.view, x_perm.view));
    CHECK_THAT(seen, Contains(view_text("input", {kTokens, 8}, {12, 1}, FRUGAL_DTYPE_FLOAT32, x.data())));
    CHECK_THAT(seen, Contains(view_text("output", {20, 8}, {8, 1}, FRUGAL_DTYPE_FLOAT32, x_perm.data())));
    CHECK_THAT(seen, Contains(view_text("plan.token_rows", {20}, {1}, FRUGAL_DTYPE_INT64, plan.plan.token_rows->data)));
    seen = echo_of(move_rows(frugal_router_combine, router.get(), plan.plan, x_perm.view, x.view));
    CHECK_THAT(seen, Contains(view_text("input", {20, 8}, {8, 1}, FRUGAL_DTYPE_FLOAT32, x_perm.data())));
    CHECK_THAT(seen, Contains(view_text("output", {kTokens, 8}, {12, 1}, FRUGAL_DTYPE_FLOAT32, x.data())));
  }
  SECTION("device tensors pass through untouched") {
    PlanTensors on_gpu(router.get(), kTokens, kGpu);
    const Tensor logits = logits_for(kTokens, 4, {.device = kGpu});
    const std::string seen = echo_of(route(router.get(), logits, on_gpu.plan));
    CHECK_THAT(seen, Contains(view_text("logits", {kTokens, 4}, {4, 1}, FRUGAL_DTYPE_FLOAT32, logits.data(),
                                        FRUGAL_DEVICE_CUDA)));
    CHECK_THAT(seen, Contains(view_text("plan.losses", {2}, {1}, FRUGAL_DTYPE_FLOAT32, on_gpu.plan.losses->data,
                                        FRUGAL_DEVICE_CUDA)));
  }
  SECTION("update: a compact [2, 2] load arrives as [4]") {
    const Tensor load(FRUGAL_DTYPE_INT64, {2, 2});
    CHECK_THAT(echo_of(frugal_router_update(router.get(), &load.view)),
               Contains(view_text("expert_load", {4}, {1}, FRUGAL_DTYPE_INT64, load.data())));
  }
}

TEST_CASE("update checks the expert loads before the plugin runs") {
  auto context = probe_context();
  auto router = make_probe(context.get());
  const Tensor load(FRUGAL_DTYPE_INT64, {4});
  for (int64_t e = 0; e < 4; ++e) load.data<int64_t>()[e] = e + 1;
  host::check(frugal_router_update(router.get(), &load.view));
  CHECK(exported_load(router.get()) == 10);

  expect_error(frugal_router_update(router.get(), nullptr), FRUGAL_ERR_INVALID_ARGUMENT, {"expert_load"});
  const Tensor ints(FRUGAL_DTYPE_INT32, {4});
  expect_error(frugal_router_update(router.get(), &ints.view), FRUGAL_ERR_INVALID_ARGUMENT,
               {"expert_load: dtype int32, expected int64"});
  const Tensor five(FRUGAL_DTYPE_INT64, {5});
  expect_error(frugal_router_update(router.get(), &five.view), FRUGAL_ERR_INVALID_ARGUMENT,
               {"expert_load: 1 x 5", "4 compact values"});
  const Tensor padded(FRUGAL_DTYPE_INT64, {4, 1}, {.strides = {2, 1}});
  expect_error(frugal_router_update(router.get(), &padded.view), FRUGAL_ERR_INVALID_ARGUMENT, {"row stride 2"});
  const Tensor on_gpu(FRUGAL_DTYPE_INT64, {4}, {.device = kGpu});
  expect_error(frugal_router_update(router.get(), &on_gpu.view), FRUGAL_ERR_UNSUPPORTED,
               {"expert_load: on CUDA:0", "host memory"});
  load.data<int64_t>()[2] = -3;
  expect_error(frugal_router_update(router.get(), &load.view), FRUGAL_ERR_INVALID_ARGUMENT,
               {"expert_load[2] is -3", ">= 0"});
  CHECK(exported_load(router.get()) == 10);  // no failed update reached the plugin
}

TEST_CASE("export_state sizes and short buffers; import_state round-trips and refuses bad blobs") {
  auto context = probe_context();
  auto router = make_probe(context.get());
  const Tensor load(FRUGAL_DTYPE_INT64, {4});
  load.data<int64_t>()[1] = 42;
  host::check(frugal_router_update(router.get(), &load.view));

  size_t size = 0;
  host::check(frugal_router_export_state(router.get(), nullptr, 0, &size));
  CHECK(size == 8);
  char small[4];
  size = 0;
  expect_error(frugal_router_export_state(router.get(), small, sizeof small, &size), FRUGAL_ERR_OUT_OF_RANGE,
               {"router 'probe_router'", "8 bytes"});
  CHECK(size == 8);  // reported even on failure, so the caller can retry
  expect_error(frugal_router_export_state(router.get(), nullptr, 8, &size), FRUGAL_ERR_INVALID_ARGUMENT,
               {"buffer is NULL"});
  expect_error(frugal_router_export_state(router.get(), small, sizeof small, nullptr), FRUGAL_ERR_INVALID_ARGUMENT,
               {"size"});

  int64_t blob = 0;
  host::check(frugal_router_export_state(router.get(), &blob, sizeof blob, &size));
  auto restored = make_probe(context.get());
  host::check(frugal_router_import_state(restored.get(), &blob, sizeof blob));
  CHECK(exported_load(restored.get()) == 42);
  expect_error(frugal_router_import_state(restored.get(), &blob, 7), FRUGAL_ERR_DATA_CORRUPTED,
               {"router 'probe_router'", "8 bytes, not 7"});
  expect_error(frugal_router_import_state(restored.get(), nullptr, 8), FRUGAL_ERR_INVALID_ARGUMENT, {"data"});
  CHECK(exported_load(restored.get()) == 42);  // failed imports changed nothing
}

TEST_CASE("statistics read four host tensors of the plan and honour struct sizes") {
  auto context = probe_context();
  auto router = make_probe(context.get());
  PlanTensors plan(router.get(), kTokens);
  host::check(route(router.get(), logits_for(kTokens), plan.plan));

  // Only expert_offsets, expert_demand, token_offsets and losses are read.
  frugal_route_plan four{};
  four.struct_size = sizeof four;
  for (const char* name : {"expert_offsets", "expert_demand", "token_offsets", "losses"})
    four.*member(name).field = plan.plan.*member(name).field;
  CHECK(stats_of(router.get(), four).kept == 20);

  frugal_route_stats small{};
  small.struct_size = offsetof(frugal_route_stats, max_load);
  small.max_load = -5;
  host::check(frugal_router_stats(router.get(), &plan.plan, &small));
  CHECK(small.dropped == 0);
  CHECK(small.max_load == -5);

  frugal_route_stats s{};
  s.struct_size = sizeof s;
  expect_error(frugal_router_stats(router.get(), nullptr, &s), FRUGAL_ERR_INVALID_ARGUMENT, {"plan"});
  expect_error(frugal_router_stats(router.get(), &plan.plan, nullptr), FRUGAL_ERR_INVALID_ARGUMENT, {"out"});
  frugal_route_plan short_plan = plan.plan;
  short_plan.struct_size = offsetof(frugal_route_plan, losses);
  expect_error(frugal_router_stats(router.get(), &short_plan, &s), FRUGAL_ERR_ABI_MISMATCH, {"plan->struct_size"});

  const Tensor offsets_on_gpu(FRUGAL_DTYPE_INT64, {kTokens + 1}, {.device = kGpu});
  expect_error(stats_into(router.get(), plan.with("token_offsets", &offsets_on_gpu.view), s), FRUGAL_ERR_UNSUPPORTED,
               {"plan.token_offsets: on CUDA:0", "host memory"});
  const Tensor experts_on_gpu(FRUGAL_DTYPE_INT64, {5}, {.device = kGpu});
  expect_error(stats_into(router.get(), plan.with("expert_offsets", &experts_on_gpu.view), s),
               FRUGAL_ERR_INVALID_ARGUMENT, {"plan.expert_offsets is on CUDA:0"});
  const Tensor one_offset(FRUGAL_DTYPE_INT64, {1});
  expect_error(stats_into(router.get(), plan.with("token_offsets", &one_offset.view), s), FRUGAL_ERR_INVALID_ARGUMENT,
               {"plan.token_offsets", "T + 1 >= 2"});

  // Numbers no route would write are refused, not averaged.
  const Tensor offsets(FRUGAL_DTYPE_INT64, {5});
  offsets.data<int64_t>()[4] = 21;
  expect_error(stats_into(router.get(), plan.with("expert_offsets", &offsets.view), s), FRUGAL_ERR_INVALID_ARGUMENT,
               {"plan.expert_offsets[E] is 21", "0 to 20 rows"});
  const Tensor demand(FRUGAL_DTYPE_INT64, {4});
  demand.data<int64_t>()[1] = -1;
  expect_error(stats_into(router.get(), plan.with("expert_demand", &demand.view), s), FRUGAL_ERR_INVALID_ARGUMENT,
               {"plan.expert_demand[1] is -1"});
}

TEST_CASE("router entry points refuse NULL arguments, unknown strategies and contexts without the plugin") {
  frugal_router* router = nullptr;
  auto bare = host::make_context();
  expect_error(frugal_router_create(bare.get(), "probe_router", nullptr, &router), FRUGAL_ERR_NOT_FOUND,
               {"no router strategy named 'probe_router'", "no plugins are loaded"});
  CHECK(router == nullptr);
  auto context = probe_context();
  expect_error(frugal_router_create(context.get(), "no_such_router", nullptr, &router), FRUGAL_ERR_NOT_FOUND,
               {"no router strategy named 'no_such_router'", "available: probe_router"});
  expect_error(frugal_router_create(context.get(), "probe_router/nope", nullptr, &router), FRUGAL_ERR_NOT_FOUND,
               {"plugin 'probe_router' has no router strategy named 'nope'"});
  expect_error(frugal_router_create(context.get(), "probe_router", nullptr, nullptr), FRUGAL_ERR_INVALID_ARGUMENT,
               {"out"});
  expect_error(frugal_router_create(nullptr, "probe_router", nullptr, &router), FRUGAL_ERR_INVALID_ARGUMENT,
               {"context"});

  // A router does not need its context once created.
  auto probe = host::make_router(context.get(), "probe_router/probe_router", nullptr);
  context.reset();
  PlanTensors plan(probe.get(), kTokens);
  host::check(route(probe.get(), logits_for(kTokens), plan.plan));

  expect_error(frugal_router_layout(probe.get(), nullptr), FRUGAL_ERR_INVALID_ARGUMENT, {"out"});
  expect_error(frugal_router_plan_shape(probe.get(), 4, nullptr), FRUGAL_ERR_INVALID_ARGUMENT, {"out"});
  frugal_route_layout layout{};
  frugal_route_shape shape{};
  frugal_route_stats stats{};
  size_t size = 0;
  for (const Outcome& o :
       {outcome(frugal_router_layout(nullptr, &layout)), outcome(frugal_router_plan_shape(nullptr, 4, &shape)),
        outcome(frugal_router_route(nullptr, nullptr)), outcome(frugal_router_permute(nullptr, nullptr)),
        outcome(frugal_router_combine(nullptr, nullptr)), outcome(frugal_router_update(nullptr, nullptr)),
        outcome(frugal_router_stats(nullptr, &plan.plan, &stats)),
        outcome(frugal_router_export_state(nullptr, nullptr, 0, &size)),
        outcome(frugal_router_import_state(nullptr, nullptr, 0))}) {
    INFO(o.message);
    CHECK(o.code == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK(o.message.find("'router'") != std::string::npos);
  }
  frugal_router_destroy(nullptr);  // allowed
}
