// GPU check of router_moe's CUDA path, through the public C API. Needs a
// CUDA device; without one it prints "SKIP: no CUDA device" and exits 0
// (ctest shows it as skipped).
//
//   route    topk_softmax (plain, renormalised), deepseek_v3 (sigmoid and
//            softmax scores, with and without groups, with a bias moved by
//            update() and one restored by import_state() on a second
//            router), expert_choice; each with fp32, bf16 and fp16 logits,
//            dropless / by probability / by position, shapes from one token
//            to 65536 x 256 x 8, padded logit rows, logits with many ties
//            and with saturating values: the same router routes the same
//            logits into host tensors and into device tensors, and every
//            byte of every plan tensor must agree (rows past N included);
//   permute  fp32 and bf16 rows, padded strides, of the CPU's plans: every
//   combine  byte of the outputs, the padding and the unused rows included.
//
// One line per group, PASS or FAIL; exit status 1 when any group fails.
// Random inputs are seeded from the clock and the seed is printed; --seed N
// repeats a run. --quick keeps the small shapes.
// usage: router_cuda_check [--quick] [--seed N]
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "device_check.hpp"
#include "formats/half.hpp"
#include "frugal/frugal.h"

namespace {

using namespace frugal::device_check;
namespace fq = frugal::quant;

struct Context {
  frugal_context* ctx = nullptr;
  int device = 0;
  cudaStream_t stream = nullptr;
  Rng rng{0};
  bool quick = false;
};

frugal_device device_for(const Context& cx, bool gpu) {
  return gpu ? frugal_device{FRUGAL_DEVICE_CUDA, cx.device} : frugal_device{FRUGAL_DEVICE_CPU, 0};
}

// ---------------------------------------------------------------------------
// Routers
// ---------------------------------------------------------------------------

struct RouterSpec {
  const char* strategy = "router_moe/topk_softmax";
  int64_t experts = 8;
  int64_t k = 2;  // 0: expert choice
  double capacity_factor = 0.0;
  const char* drop_policy = nullptr;  // "probability" / "position" with a factor
  bool renormalize = false;
  const char* score = nullptr;  // deepseek_v3
  int64_t groups = 1;
  int64_t topk_groups = 1;
  double route_scale = 1.0;
  double gamma = 0.0;
  double aux_coef = 0.01;
  double z_coef = 0.001;

  bool deepseek() const { return std::strcmp(strategy, "router_moe/deepseek_v3") == 0; }
  bool expert_choice() const { return k == 0; }

  std::string label() const {
    std::string s = std::string(strategy + std::strlen("router_moe/")) + " E=" + std::to_string(experts);
    if (!expert_choice()) s += " k=" + std::to_string(k);
    if (deepseek()) {
      s += std::string(" ") + score;
      if (groups > 1) s += " g" + std::to_string(groups) + "/" + std::to_string(topk_groups);
    }
    if (renormalize) s += " renorm";
    if (drop_policy != nullptr) s += std::string(" ") + drop_policy;
    if (capacity_factor != 0.0) s += " cf=" + std::to_string(capacity_factor).substr(0, 4);
    return s;
  }
};

class Router {
 public:
  Router(frugal_context* ctx, const RouterSpec& spec) {
    frugal_options* o = nullptr;
    expect_ok(frugal_options_create(&o), "options");
    std::unique_ptr<frugal_options, void (*)(frugal_options*)> guard(o, frugal_options_destroy);
    expect_ok(frugal_options_set_int(o, "experts", spec.experts), "experts");
    if (!spec.expert_choice()) {
      expect_ok(frugal_options_set_int(o, "k", spec.k), "k");
      expect_ok(frugal_options_set_double(o, "aux_coef", spec.aux_coef), "aux_coef");
      expect_ok(frugal_options_set_double(o, "z_coef", spec.z_coef), "z_coef");
    }
    if (spec.capacity_factor != 0.0) {
      expect_ok(frugal_options_set_double(o, "capacity_factor", spec.capacity_factor), "capacity_factor");
    }
    if (spec.drop_policy != nullptr) expect_ok(frugal_options_set_string(o, "drop_policy", spec.drop_policy), "policy");
    if (spec.renormalize) expect_ok(frugal_options_set_bool(o, "renormalize", 1), "renormalize");
    if (spec.deepseek()) {
      expect_ok(frugal_options_set_string(o, "score", spec.score), "score");
      expect_ok(frugal_options_set_int(o, "groups", spec.groups), "groups");
      expect_ok(frugal_options_set_int(o, "topk_groups", spec.topk_groups), "topk_groups");
      expect_ok(frugal_options_set_double(o, "route_scale", spec.route_scale), "route_scale");
      expect_ok(frugal_options_set_double(o, "gamma", spec.gamma), "gamma");
    }
    expect_ok(frugal_router_create(ctx, spec.strategy, o, &r_), "frugal_router_create");
  }
  ~Router() { frugal_router_destroy(r_); }
  Router(const Router&) = delete;
  Router& operator=(const Router&) = delete;

  frugal_router* get() const { return r_; }

  frugal_route_shape shape(int64_t tokens) const {
    frugal_route_shape s{};
    s.struct_size = sizeof(s);
    expect_ok(frugal_router_plan_shape(r_, tokens, &s), "frugal_router_plan_shape");
    return s;
  }

  void update(std::vector<int64_t> load) {
    View v;
    expect_ok(frugal_router_update(r_, v.set(load.data(), FRUGAL_DTYPE_INT64, frugal_device{FRUGAL_DEVICE_CPU, 0}, 1,
                                             static_cast<int64_t>(load.size()), static_cast<int64_t>(load.size()))),
              "frugal_router_update");
  }

  std::vector<uint8_t> state() const {
    std::size_t size = 0;
    expect_ok(frugal_router_export_state(r_, nullptr, 0, &size), "export_state size");
    std::vector<uint8_t> blob(size);
    expect_ok(frugal_router_export_state(r_, blob.data(), blob.size(), &size), "export_state");
    return blob;
  }
  void restore(const std::vector<uint8_t>& blob) {
    expect_ok(frugal_router_import_state(r_, blob.data(), blob.size()), "import_state");
  }

 private:
  frugal_router* r_ = nullptr;
};

// ---------------------------------------------------------------------------
// Plans on both sides
// ---------------------------------------------------------------------------

// One plan tensor: its twin buffers and one view per side.
struct PlanTensor {
  const char* name;
  int32_t dtype;
  Twin twin;
  View view[2];

  PlanTensor(const char* n, int32_t dt, int64_t count)
      : name(n), dtype(dt), twin(static_cast<std::size_t>(count) * dtype_bytes(dt), 0xA5) {}
  const frugal_tensor* at(bool gpu, frugal_device dev) {
    const auto count = static_cast<int64_t>(twin.host.size() / dtype_bytes(dtype));
    return view[gpu ? 1 : 0].set(twin.side(gpu), dtype, dev, 1, count, count);
  }
};

// The plan's tensors, their dtypes and lengths (frugal_route_plan).
enum class Length { slots, experts_plus_one, experts, rows, tokens_plus_one, two };
struct PlanField {
  const char* name;
  int32_t dtype;
  Length length;
  const frugal_tensor* frugal_route_plan::*slot;
};
const PlanField kPlanFields[] = {
    {"expert_ids", FRUGAL_DTYPE_INT32, Length::slots, &frugal_route_plan::expert_ids},
    {"weights", FRUGAL_DTYPE_FLOAT32, Length::slots, &frugal_route_plan::weights},
    {"dropped", FRUGAL_DTYPE_UINT8, Length::slots, &frugal_route_plan::dropped},
    {"slot_row", FRUGAL_DTYPE_INT64, Length::slots, &frugal_route_plan::slot_row},
    {"expert_offsets", FRUGAL_DTYPE_INT64, Length::experts_plus_one, &frugal_route_plan::expert_offsets},
    {"expert_demand", FRUGAL_DTYPE_INT64, Length::experts, &frugal_route_plan::expert_demand},
    {"row_token", FRUGAL_DTYPE_INT64, Length::rows, &frugal_route_plan::row_token},
    {"row_weight", FRUGAL_DTYPE_FLOAT32, Length::rows, &frugal_route_plan::row_weight},
    {"token_offsets", FRUGAL_DTYPE_INT64, Length::tokens_plus_one, &frugal_route_plan::token_offsets},
    {"token_rows", FRUGAL_DTYPE_INT64, Length::rows, &frugal_route_plan::token_rows},
    {"mean_prob", FRUGAL_DTYPE_FLOAT32, Length::experts, &frugal_route_plan::mean_prob},
    {"losses", FRUGAL_DTYPE_FLOAT32, Length::two, &frugal_route_plan::losses},
};

// A plan on both sides, every tensor filled with the same junk first.
class PlanTwins {
 public:
  PlanTwins(int64_t tokens, int64_t experts, int64_t k, int64_t rows) {
    for (const PlanField& f : kPlanFields) {
      if (f.length == Length::slots && k == 0) continue;  // expert choice: no slots
      const int64_t lengths[] = {tokens * k, experts + 1, experts, rows, tokens + 1, 2};
      tensors_.push_back({&f, std::make_unique<PlanTensor>(f.name, f.dtype, lengths[static_cast<int>(f.length)])});
    }
  }

  const frugal_route_plan* plan(bool gpu, frugal_device dev) {
    frugal_route_plan& p = plan_[gpu ? 1 : 0];
    p = frugal_route_plan{};
    p.struct_size = sizeof(p);
    for (auto& [field, tensor] : tensors_) p.*(field->slot) = tensor->at(gpu, dev);
    return &p;
  }

  // "" when every tensor agrees byte for byte.
  std::string compare_all() {
    for (auto& entry : tensors_) {
      std::string why = compare(entry.second->twin, entry.second->name);
      if (!why.empty()) return why;
    }
    return {};
  }

  // The device copy of the plan made equal to the CPU's (the moves are
  // then checked on their own).
  void device_from_host() {
    for (auto& entry : tensors_) entry.second->twin.set(entry.second->twin.host);
  }

 private:
  std::vector<std::pair<const PlanField*, std::unique_ptr<PlanTensor>>> tensors_;
  frugal_route_plan plan_[2]{};
};

// ---------------------------------------------------------------------------
// Logits
// ---------------------------------------------------------------------------

enum class Spread {
  normal,     // sigma 2 near-normal values
  ties,       // 5 levels only: many exact ties in every row
  saturated,  // sigma 60: sigmoid 0 / 1 and softmax underflow (ties of zeros)
};

const char* spread_label(Spread s) {
  switch (s) {
    case Spread::normal: return "normal";
    case Spread::ties: return "ties";
    case Spread::saturated: break;
  }
  return "saturated";
}

struct LogitCase {
  int64_t tokens;
  int64_t pad;  // extra elements per logit row
  Spread spread;
};

// [tokens, experts] logits in `dtype`, rows padded to experts + pad with
// NaN patterns the router must not read.
std::vector<uint8_t> make_logits(Rng& rng, const LogitCase& c, int64_t experts, int32_t dtype) {
  const std::size_t es = dtype_bytes(dtype);
  const int64_t stride = experts + c.pad;
  std::vector<uint8_t> out(static_cast<std::size_t>(c.tokens * stride) * es, 0xFF);
  const uint64_t seed = rng.next();
  for (int64_t t = 0; t < c.tokens; ++t) {
    // A per-token offset, as real router logits drift.
    const double offset = near_normal(mix(seed ^ static_cast<uint64_t>(t)));
    for (int64_t e = 0; e < experts; ++e) {
      const double z = near_normal(mix(seed + static_cast<uint64_t>(t * experts + e) + 1));
      double v = offset + 2.0 * z;
      if (c.spread == Spread::ties) v = std::round(z * 1.2) * 0.75;
      if (c.spread == Spread::saturated) v = 60.0 * z;
      const auto f = static_cast<float>(v);
      uint8_t* p = out.data() + static_cast<std::size_t>(t * stride + e) * es;
      if (dtype == FRUGAL_DTYPE_FLOAT32) {
        std::memcpy(p, &f, 4);
      } else {
        const uint16_t h = dtype == FRUGAL_DTYPE_FLOAT16 ? fq::fp32_to_fp16(f) : fq::fp32_to_bf16(f);
        std::memcpy(p, &h, 2);
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Route cases
// ---------------------------------------------------------------------------

// Routes new logits on both sides with `router` into `plan`; "" when the
// two plans agree.
std::string route_into(Context& cx, Router& router, const RouterSpec& spec, const LogitCase& c, int32_t dtype,
                       PlanTwins& plan) {
  Twin logits(make_logits(cx.rng, c, spec.experts, dtype));
  for (const bool gpu : {false, true}) {
    const frugal_device dev = device_for(cx, gpu);
    View lv;
    frugal_route_args a{};
    a.struct_size = sizeof(a);
    a.logits = lv.set(logits.side(gpu), dtype, dev, c.tokens, spec.experts, spec.experts + c.pad);
    a.plan = plan.plan(gpu, dev);
    a.stream = gpu ? static_cast<void*>(cx.stream) : nullptr;
    const Outcome r = outcome(frugal_router_route(router.get(), &a));
    if (gpu) cuda_ok(cudaStreamSynchronize(cx.stream), "cudaStreamSynchronize");
    if (r.code != 0) return std::string(gpu ? "cuda" : "cpu") + " route: " + r.message;
  }
  return plan.compare_all();
}

std::string route_case(Context& cx, Router& router, const RouterSpec& spec, const LogitCase& c, int32_t dtype) {
  PlanTwins plan(c.tokens, spec.experts, spec.k, router.shape(c.tokens).max_rows);
  return route_into(cx, router, spec, c, dtype, plan);
}

std::string case_label(const LogitCase& c, int32_t dtype) {
  return std::to_string(c.tokens) + " tokens +" + std::to_string(c.pad) + " " + dtype_label(dtype) + " " +
         spread_label(c.spread);
}

void note(Group& g, const std::string& where, const std::string& why) {
  ++g.cases;
  if (!why.empty() && g.failed++ == 0) g.first = where + ": " + why;
}

template <class Fn>
void attempt(Group& g, const std::string& where, Fn fn) {
  std::string why;
  try {
    why = fn();
  } catch (const std::exception& e) {
    why = e.what();
  }
  note(g, where, why);
}

std::vector<LogitCase> logit_cases(const Context& cx, int64_t experts, int64_t k) {
  std::vector<LogitCase> cases = {{1, 0, Spread::normal},   {3, 2, Spread::ties},   {17, 0, Spread::saturated},
                                  {300, 0, Spread::normal}, {257, 5, Spread::ties}, {1000, 0, Spread::saturated},
                                  {4100, 1, Spread::normal}};
  if (!cx.quick) {
    cases.push_back({20000, 0, Spread::ties});
    // The benchmark's shape.
    if (experts == 256 && k == 8) cases.push_back({65536, 0, Spread::normal});
  }
  return cases;
}

const int32_t kLogitTypes[] = {FRUGAL_DTYPE_FLOAT32, FRUGAL_DTYPE_BFLOAT16, FRUGAL_DTYPE_FLOAT16};

// Every logit case and type for one router.
bool check_router(Context& cx, const RouterSpec& spec) {
  Group g;
  Router router(cx.ctx, spec);
  for (const LogitCase& c : logit_cases(cx, spec.experts, spec.k)) {
    for (const int32_t dtype : kLogitTypes) {
      if (c.tokens >= 20000 && dtype == FRUGAL_DTYPE_FLOAT16) continue;  // the large shapes: two types are enough
      attempt(g, case_label(c, dtype), [&] { return route_case(cx, router, spec, c, dtype); });
    }
  }
  return report("route " + spec.label(), g);
}

std::vector<RouterSpec> router_specs(const Context& cx) {
  std::vector<RouterSpec> specs;
  const auto policies = [&](RouterSpec s) {
    specs.push_back(s);  // dropless
    s.capacity_factor = 1.0;
    s.drop_policy = "probability";
    specs.push_back(s);
    s.capacity_factor = 1.25;
    s.drop_policy = "position";
    specs.push_back(s);
  };
  for (const auto& [E, k] : {std::pair<int64_t, int64_t>{1, 1}, {8, 2}, {64, 6}, {256, 8}}) {
    RouterSpec s;
    s.experts = E;
    s.k = k;
    policies(s);
    if (E == 64) {
      s.renormalize = true;
      s.z_coef = 0.0;
      specs.push_back(s);
    }
  }
  if (!cx.quick) {
    RouterSpec wide;  // experts past a warp's 32 lanes many times, odd k
    wide.experts = 1000;
    wide.k = 5;
    policies(wide);
  }
  struct DeepSeekShape {
    int64_t experts, k, groups, topk_groups;
  };
  for (const DeepSeekShape d : {DeepSeekShape{16, 4, 1, 1}, {64, 6, 8, 3}, {256, 8, 8, 4}, {12, 3, 12, 5}}) {
    for (const char* score : {"sigmoid", "softmax"}) {
      RouterSpec s;
      s.strategy = "router_moe/deepseek_v3";
      s.experts = d.experts;
      s.k = d.k;
      s.groups = d.groups;
      s.topk_groups = d.topk_groups;
      s.score = score;
      s.route_scale = 2.5;
      s.aux_coef = 1e-4;
      s.z_coef = d.experts == 64 ? 0.001 : 0.0;
      if (d.experts == 256 || (d.experts == 64 && std::strcmp(score, "sigmoid") == 0)) {
        policies(s);
      } else {
        specs.push_back(s);
      }
    }
  }
  for (const double factor : {1.0, 2.0, 0.3}) {
    for (const int64_t E : {1, 8, 64, 256}) {
      RouterSpec s;
      s.strategy = "router_moe/expert_choice";
      s.experts = E;
      s.k = 0;
      s.capacity_factor = factor;
      specs.push_back(s);
    }
  }
  return specs;
}

// deepseek_v3 with a bias: moved by update() on one router, then carried to
// a second router by export / import_state; both route on both sides.
bool check_bias(Context& cx) {
  bool ok = true;
  for (const char* score : {"sigmoid", "softmax"}) {
    RouterSpec s;
    s.strategy = "router_moe/deepseek_v3";
    s.experts = 64;
    s.k = 6;
    s.groups = 8;
    s.topk_groups = 3;
    s.score = score;
    s.gamma = 0.02;
    s.capacity_factor = 1.0;
    s.drop_policy = "probability";
    Group g;
    Router first(cx.ctx, s);
    Rng loads(cx.rng.next());
    for (int step = 0; step < 4; ++step) {
      std::vector<int64_t> load(static_cast<std::size_t>(s.experts));
      for (int64_t& l : load) l = static_cast<int64_t>(loads.next() % 1000);
      first.update(load);
      for (const LogitCase& c : {LogitCase{513, 0, Spread::normal}, LogitCase{64, 3, Spread::ties}}) {
        attempt(g, "step " + std::to_string(step) + " " + case_label(c, FRUGAL_DTYPE_BFLOAT16),
                [&] { return route_case(cx, first, s, c, FRUGAL_DTYPE_BFLOAT16); });
      }
    }
    Router second(cx.ctx, s);
    second.restore(first.state());
    for (const int32_t dtype : kLogitTypes) {
      const LogitCase c{2049, 1, Spread::normal};
      attempt(g, "imported state " + case_label(c, dtype), [&] { return route_case(cx, second, s, c, dtype); });
    }
    ok = report(std::string("route deepseek_v3 ") + score + " with a bias (update, import_state)", g) && ok;
  }
  return ok;
}

// ---------------------------------------------------------------------------
// Moves
// ---------------------------------------------------------------------------

// Random activation rows in `dtype`, `rows` x `hidden` padded to `stride`.
std::vector<uint8_t> make_rows(Rng& rng, int64_t rows, int64_t hidden, int64_t stride, int32_t dtype) {
  const std::size_t es = dtype_bytes(dtype);
  std::vector<uint8_t> out(static_cast<std::size_t>(rows * stride) * es, 0x5A);
  const uint64_t seed = rng.next();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t h = 0; h < hidden; ++h) {
      const auto f = static_cast<float>(near_normal(mix(seed + static_cast<uint64_t>(r * hidden + h))));
      uint8_t* p = out.data() + static_cast<std::size_t>(r * stride + h) * es;
      if (dtype == FRUGAL_DTYPE_FLOAT32) {
        std::memcpy(p, &f, 4);
      } else {
        const uint16_t b = fq::fp32_to_bf16(f);
        std::memcpy(p, &b, 2);
      }
    }
  }
  return out;
}

struct MoveShape {
  int64_t hidden;
  int64_t pad_in;
  int64_t pad_out;
};

// Permute then combine on both sides with the CPU's plan; "" when equal.
std::string moves_case(Context& cx, Router& router, const RouterSpec& spec, int64_t tokens, int32_t dtype,
                       const MoveShape& m) {
  const frugal_route_shape shape = router.shape(tokens);
  PlanTwins plan(tokens, spec.experts, spec.k, shape.max_rows);
  const std::string routed =
      route_into(cx, router, spec, LogitCase{tokens, 0, Spread::normal}, FRUGAL_DTYPE_FLOAT32, plan);
  if (!routed.empty()) return "route: " + routed;
  plan.device_from_host();
  const int64_t R = shape.max_rows;
  const int64_t H = m.hidden;
  const int64_t x_stride = H + m.pad_in;
  const int64_t p_stride = H + m.pad_out;
  const std::size_t es = dtype_bytes(dtype);
  Twin x(make_rows(cx.rng, tokens, H, x_stride, dtype));
  Twin permuted(static_cast<std::size_t>(R * p_stride) * es, 0xC3);
  Twin y(make_rows(cx.rng, R, H, p_stride, dtype));
  Twin combined(static_cast<std::size_t>(tokens * x_stride) * es, 0xC3);

  const auto move = [&](bool gpu, bool combine, Twin& in, int64_t in_rows, int64_t in_stride, Twin& out,
                        int64_t out_rows, int64_t out_stride) -> std::string {
    const frugal_device dev = device_for(cx, gpu);
    View vi, vo;
    frugal_route_move_args a{};
    a.struct_size = sizeof(a);
    a.plan = plan.plan(gpu, dev);
    a.input = vi.set(in.side(gpu), dtype, dev, in_rows, H, in_stride);
    a.output = vo.set(out.side(gpu), dtype, dev, out_rows, H, out_stride);
    a.stream = gpu ? static_cast<void*>(cx.stream) : nullptr;
    const Outcome r =
        outcome(combine ? frugal_router_combine(router.get(), &a) : frugal_router_permute(router.get(), &a));
    if (gpu) cuda_ok(cudaStreamSynchronize(cx.stream), "cudaStreamSynchronize");
    if (r.code != 0) return std::string(gpu ? "cuda " : "cpu ") + (combine ? "combine: " : "permute: ") + r.message;
    return {};
  };
  for (const bool gpu : {false, true}) {
    if (std::string e = move(gpu, false, x, tokens, x_stride, permuted, R, p_stride); !e.empty()) return e;
  }
  if (std::string e = compare(permuted, "permuted rows"); !e.empty()) return e;
  for (const bool gpu : {false, true}) {
    if (std::string e = move(gpu, true, y, R, p_stride, combined, tokens, x_stride); !e.empty()) return e;
  }
  return compare(combined, "combined rows");
}

bool check_moves(Context& cx) {
  bool ok = true;
  std::vector<MoveShape> shapes = {{1, 0, 0}, {7, 1, 3}, {64, 0, 0}, {200, 8, 0}, {1000, 0, 24}};
  if (!cx.quick) shapes.push_back({7168, 0, 0});
  RouterSpec dropping;
  dropping.experts = 16;
  dropping.k = 4;
  dropping.capacity_factor = 0.8;
  dropping.drop_policy = "position";
  RouterSpec dropless;
  dropless.experts = 64;
  dropless.k = 8;
  RouterSpec chooser;
  chooser.strategy = "router_moe/expert_choice";
  chooser.experts = 32;
  chooser.k = 0;
  chooser.capacity_factor = 2.0;
  for (const RouterSpec& spec : {dropping, dropless, chooser}) {
    Router router(cx.ctx, spec);
    for (const int32_t dtype : {int32_t{FRUGAL_DTYPE_FLOAT32}, int32_t{FRUGAL_DTYPE_BFLOAT16}}) {
      Group g;
      for (const MoveShape& m : shapes) {
        for (const int64_t tokens : {int64_t{1}, int64_t{37}, int64_t{m.hidden >= 7168 ? 2048 : 1500}}) {
          const std::string where = std::to_string(tokens) + " tokens, hidden " + std::to_string(m.hidden) + " +" +
                                    std::to_string(m.pad_in) + "/+" + std::to_string(m.pad_out);
          attempt(g, where, [&] { return moves_case(cx, router, spec, tokens, dtype, m); });
        }
      }
      ok = report("permute+combine " + std::string(dtype_label(dtype)) + ", " + spec.label(), g) && ok;
    }
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  return run_check("router_cuda_check", argc, argv, [](const Session& s) {
    Context cx{s.ctx, s.device, s.stream, Rng(s.seed), s.quick};
    bool ok = true;
    const auto t0 = std::chrono::steady_clock::now();
    for (const RouterSpec& spec : router_specs(cx)) ok = check_router(cx, spec) && ok;
    ok = check_bias(cx) && ok;
    const auto t1 = std::chrono::steady_clock::now();
    ok = check_moves(cx) && ok;
    const auto t2 = std::chrono::steady_clock::now();
    std::printf("router_cuda_check: route %.1f s, moves %.1f s\n", std::chrono::duration<double>(t1 - t0).count(),
                std::chrono::duration<double>(t2 - t1).count());
    return ok;
  });
}
