// The router C API end to end with router_moe: every plan tensor equals the
// algorithms library's result for the same logits (all three routers, all
// logit dtypes, every drop policy, padded rows), permute / combine equal
// the library's and combine(permute(x)) is the gate-weighted sum, load
// statistics, bad options and bad input.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "algorithms/deepseek_gate.hpp"
#include "algorithms/dispatch_plan.hpp"
#include "algorithms/expert_choice.hpp"
#include "algorithms/load_stats.hpp"
#include "algorithms/permute.hpp"
#include "algorithms/topk_softmax.hpp"
#include "formats/half.hpp"
#include "router_api_support.hpp"
#include "test_helpers.hpp"

using namespace frugal::test;
namespace fr = frugal::router;

namespace {

fr::Logits rows_of(const HostTensor& logits) {
  const int32_t dt = logits.view.dtype;
  const fr::LogitType type = dt == FRUGAL_DTYPE_FLOAT32    ? fr::LogitType::f32
                             : dt == FRUGAL_DTYPE_BFLOAT16 ? fr::LogitType::bf16
                                                           : fr::LogitType::f16;
  return fr::Logits{{logits.bytes.data(), logits.rows(), logits.cols(), logits.row_stride()}, type};
}

template <class T>
std::vector<T> as_vector(const HostTensor& t) {
  const auto v = HostPlan::values<T>(t);
  return {v.begin(), v.end()};
}

// The plan the C API wrote against the library's: equal element for element,
// rows past N blank.
void expect_plan_equals(const HostPlan& got, const fr::DispatchPlan& want, const std::vector<float>& mean_prob,
                        float aux, float z) {
  const auto n = static_cast<std::size_t>(want.rows());
  CHECK(as_vector<int64_t>(*got.expert_offsets) == want.expert_offsets);
  CHECK(as_vector<int64_t>(*got.expert_demand) == want.expert_demand);
  CHECK(as_vector<int64_t>(*got.token_offsets) == want.token_offsets);
  auto row_token = as_vector<int64_t>(*got.row_token);
  auto token_rows = as_vector<int64_t>(*got.token_rows);
  auto row_weight = as_vector<float>(*got.row_weight);
  REQUIRE(row_token.size() >= n);
  for (std::size_t r = n; r < row_token.size(); ++r) {
    CHECK(row_token[r] == -1);
    CHECK(token_rows[r] == -1);
    CHECK(row_weight[r] == 0.0f);
  }
  row_token.resize(n);
  token_rows.resize(n);
  row_weight.resize(n);
  CHECK(row_token == want.row_token);
  CHECK(token_rows == want.token_rows);
  CHECK(row_weight == want.row_weight);
  if (want.k > 0) {
    CHECK(as_vector<uint8_t>(*got.dropped) == want.dropped);
    CHECK(as_vector<int64_t>(*got.slot_row) == want.slot_row);
  }
  CHECK(as_vector<float>(*got.mean_prob) == mean_prob);
  CHECK(as_vector<float>(*got.losses) == std::vector<float>{aux, z});
}

fr::CapacityOptions capacity_of(const char* policy, double factor) {
  if (std::string(policy) == "dropless") return {};
  return {std::string(policy) == "probability" ? fr::DropPolicy::by_probability : fr::DropPolicy::by_position, factor};
}

std::vector<Option> with_capacity(std::vector<Option> options, const char* policy, double factor) {
  if (std::string(policy) != "dropless") {
    options.push_back({"capacity_factor", factor});
    options.push_back({"drop_policy", policy});
  }
  return options;
}

constexpr int32_t kLogitTypes[] = {FRUGAL_DTYPE_FLOAT32, FRUGAL_DTYPE_BFLOAT16, FRUGAL_DTYPE_FLOAT16};

}  // namespace

TEST_CASE("router api: topk_softmax writes the algorithms' plan for every logit dtype and drop policy") {
  auto context = router_context();
  for (const int32_t dt : kLogitTypes) {
    for (const char* policy : {"dropless", "probability", "position"}) {
      INFO("dtype " << dt << ", policy " << policy);
      auto router = make_router(context.get(), "topk_softmax",
                                with_capacity({{"experts", int64_t{8}},
                                               {"k", int64_t{2}},
                                               {"renormalize", true},
                                               {"aux_coef", 0.01},
                                               {"z_coef", 0.001}},
                                              policy, 1.0));
      const auto logits = random_logits(dt, 200, 8, 11, 2.0f, /*row_pad=*/3, {1.5f, 0, 0, 0, 0, 0, 0, -1});
      HostPlan plan(router.get(), 200);
      route(router.get(), *logits, plan);

      fr::TopkSoftmaxOptions o;
      o.k = 2;
      o.renormalize = true;
      o.aux_coef = 0.01f;
      o.z_coef = 0.001f;
      const fr::TopkSoftmaxResult want = fr::topk_softmax(rows_of(*logits), o);
      CHECK(as_vector<int32_t>(*plan.expert_ids) == want.routing.expert);
      CHECK(as_vector<float>(*plan.weights) == want.routing.weight);
      expect_plan_equals(plan, fr::build_dispatch_plan(want.routing, capacity_of(policy, 1.0)), want.mean_prob,
                         want.aux_loss, want.z_loss);
      if (std::string(policy) != "dropless") CHECK(plan.shape.capacity == 50);  // 200 * 2 / 8
    }
  }
}

TEST_CASE("router api: deepseek_v3 writes the algorithms' plan (256 experts, top-8, 8 groups, top-4 groups)") {
  auto context = router_context();
  for (const int32_t dt : kLogitTypes) {
    for (const char* policy : {"dropless", "position"}) {
      INFO("dtype " << dt << ", policy " << policy);
      auto router = make_router(context.get(), "router_moe/deepseek_v3",
                                with_capacity({{"experts", int64_t{256}},
                                               {"k", int64_t{8}},
                                               {"groups", int64_t{8}},
                                               {"topk_groups", int64_t{4}},
                                               {"route_scale", 2.5},
                                               {"aux_coef", 0.0001},
                                               {"z_coef", 0.001}},
                                              policy, 1.25));
      const auto logits = random_logits(dt, 96, 256, 5, 1.0f, /*row_pad=*/1);
      HostPlan plan(router.get(), 96);
      route(router.get(), *logits, plan);

      fr::DeepSeekGateOptions o;
      o.k = 8;
      o.groups = 8;
      o.topk_groups = 4;
      o.route_scale = 2.5f;
      o.aux_coef = 0.0001f;
      o.z_coef = 0.001f;
      // The router always has a bias (zeros until updated), which makes the
      // group score the sum of each group's top two.
      const std::vector<float> bias(256, 0.0f);
      const fr::DeepSeekGateResult want = fr::deepseek_v3_route(rows_of(*logits), bias, o);
      CHECK(as_vector<int32_t>(*plan.expert_ids) == want.routing.expert);
      CHECK(as_vector<float>(*plan.weights) == want.routing.weight);
      expect_plan_equals(plan, fr::build_dispatch_plan(want.routing, capacity_of(policy, 1.25)), want.mean_prob,
                         want.aux_loss, want.z_loss);
    }
  }
}

TEST_CASE("router api: expert_choice writes the algorithms' plan; each expert takes C tokens") {
  auto context = router_context();
  for (const int32_t dt : kLogitTypes) {
    INFO("dtype " << dt);
    auto router = make_router(context.get(), "expert_choice", {{"experts", int64_t{16}}, {"capacity_factor", 2.0}});
    const auto logits = random_logits(dt, 100, 16, 3);
    HostPlan plan(router.get(), 100);
    CHECK(plan.shape.capacity == 13);  // ceil(100 * 2 / 16)
    CHECK(plan.shape.max_rows == 16 * 13);
    route(router.get(), *logits, plan);
    const fr::ExpertChoiceResult want = fr::expert_choice_route(rows_of(*logits), {2.0, 0});
    expect_plan_equals(plan, want.plan, want.mean_prob, 0.0f, 0.0f);
  }
}

TEST_CASE("router api: permute and combine equal the library's; combine(permute(x)) is the weighted sum") {
  auto context = router_context();
  for (const int32_t dt : {FRUGAL_DTYPE_FLOAT32, FRUGAL_DTYPE_BFLOAT16}) {
    INFO("dtype " << dt);
    auto router = make_router(context.get(), "topk_softmax",
                              {{"experts", int64_t{8}},
                               {"k", int64_t{2}},
                               {"capacity_factor", 1.0},
                               {"drop_policy", "position"},
                               {"threads", int64_t{3}}});
    constexpr int64_t T = 150, H = 40;
    const auto logits = random_logits(FRUGAL_DTYPE_FLOAT32, T, 8, 21, 2.0f, 0, {2.0f, 1.0f});  // skewed: drops
    HostPlan plan(router.get(), T);
    route(router.get(), *logits, plan);
    const int64_t R = plan.shape.max_rows;

    const auto x = random_logits(dt, T, H, 22, 1.0f, /*row_pad=*/5);  // activations, padded rows
    HostTensor x_perm(dt, {R, H}, /*row_pad=*/2);
    permute(router.get(), plan, *x, x_perm);
    HostTensor y(dt, {T, H}, /*row_pad=*/1);
    combine(router.get(), plan, x_perm, y);

    // The library on compact copies.
    fr::TopkSoftmaxOptions o;
    o.k = 2;
    const fr::DispatchPlan want =
        fr::build_dispatch_plan(fr::topk_softmax(rows_of(*logits), o).routing, {fr::DropPolicy::by_position, 1.0});
    REQUIRE(want.dropped_count() > 0);
    const std::size_t es = element_size(dt);
    const std::vector<uint8_t> xs = x->payload();
    std::vector<uint8_t> perm_want(static_cast<std::size_t>(want.rows() * H) * es);
    std::vector<uint8_t> y_want(static_cast<std::size_t>(T * H) * es);
    if (dt == FRUGAL_DTYPE_FLOAT32) {
      const auto f = [](auto& v) { return std::span(reinterpret_cast<float*>(v.data()), v.size() / 4); };
      std::vector<uint8_t> xc = xs;
      fr::permute_rows(want, std::span<const float>(f(xc)), H, f(perm_want));
      fr::combine_rows(want, std::span<const float>(f(perm_want)), H, f(y_want));
    } else {
      const auto b = [](auto& v) { return std::span(reinterpret_cast<uint16_t*>(v.data()), v.size() / 2); };
      std::vector<uint8_t> xc = xs;
      fr::permute_rows(want, std::span<const uint16_t>(b(xc)), H, b(perm_want));
      fr::combine_rows(want, std::span<const uint16_t>(b(perm_want)), H, b(y_want));
    }
    std::vector<uint8_t> perm_got = x_perm.payload();
    perm_got.resize(perm_want.size());  // rows past N are untouched by permute
    CHECK(perm_got == perm_want);
    CHECK(y.payload() == y_want);

    // Independently, in fp32: y[t] = sum over the token's kept slots (slot
    // order) of w * x[t]; dropped tokens get 0.
    if (dt == FRUGAL_DTYPE_FLOAT32) {
      const auto w = HostPlan::values<float>(*plan.weights);
      const auto dropped = HostPlan::values<uint8_t>(*plan.dropped);
      for (int64_t t = 0; t < T; ++t) {
        for (int64_t h = 0; h < H; ++h) {
          float acc = 0.0f, xv = 0.0f, got = 0.0f;
          std::memcpy(&xv, x->at(t, h), 4);
          for (int64_t j = 0; j < 2; ++j)
            if (dropped[static_cast<std::size_t>(t * 2 + j)] == 0) acc += w[static_cast<std::size_t>(t * 2 + j)] * xv;
          std::memcpy(&got, y.at(t, h), 4);
          REQUIRE(got == acc);
        }
      }
    }
  }
}

TEST_CASE("router api: stats match the library's load statistics") {
  auto context = router_context();
  auto router = make_router(context.get(), "topk_softmax",
                            {{"experts", int64_t{4}},
                             {"k", int64_t{1}},
                             {"capacity_factor", 1.0},
                             {"drop_policy", "probability"},
                             {"aux_coef", 0.5}});
  const auto logits = random_logits(FRUGAL_DTYPE_FLOAT32, 64, 4, 9, 1.0f, 0, {3.0f, 0.0f, 0.0f, -3.0f});
  HostPlan plan(router.get(), 64);
  route(router.get(), *logits, plan);
  frugal_route_stats s{};
  s.struct_size = sizeof(s);
  frugal::host::check(frugal_router_stats(router.get(), &plan.plan, &s));

  fr::TopkSoftmaxOptions o;
  o.k = 1;
  o.aux_coef = 0.5f;
  o.z_coef = 0.001f;  // the router's default
  const auto result = fr::topk_softmax(rows_of(*logits), o);
  const fr::DispatchPlan want = fr::build_dispatch_plan(result.routing, {fr::DropPolicy::by_probability, 1.0});
  const fr::LoadStats ls = fr::load_stats(want, result.aux_loss);
  CHECK(s.tokens == 64);
  CHECK(s.assignments == 64);
  CHECK(s.kept == want.rows());
  CHECK(s.dropped == want.dropped_count());
  CHECK(s.dropped > 0);  // the skew overfills expert 0 beyond C = 16
  CHECK(s.max_load == *std::max_element(ls.demand.begin(), ls.demand.end()));
  CHECK(s.max_over_mean == Approx(ls.max_over_mean).epsilon(1e-12));
  CHECK(s.dropped_fraction == Approx(ls.dropped_fraction).epsilon(1e-12));
  CHECK(s.aux_loss == result.aux_loss);
  CHECK(s.z_loss == result.z_loss);
}

TEST_CASE("router api: results do not depend on the thread count") {
  auto context = router_context();
  const auto logits = random_logits(FRUGAL_DTYPE_BFLOAT16, 700, 64, 31);
  std::vector<std::vector<uint8_t>> runs;
  for (const int64_t threads : {1, 2, 7}) {
    auto router = make_router(context.get(), "deepseek_v3",
                              {{"experts", int64_t{64}},
                               {"k", int64_t{6}},
                               {"groups", int64_t{8}},
                               {"topk_groups", int64_t{3}},
                               {"threads", threads},
                               {"aux_coef", 0.001}});
    HostPlan plan(router.get(), 700);
    route(router.get(), *logits, plan);
    std::vector<uint8_t> all;
    for (const HostTensor* t : {plan.expert_ids.get(), plan.weights.get(), plan.row_token.get(), plan.token_rows.get(),
                                plan.mean_prob.get(), plan.losses.get()})
      all.insert(all.end(), t->bytes.begin(), t->bytes.end());
    runs.push_back(all);
  }
  CHECK(runs[0] == runs[1]);
  CHECK(runs[0] == runs[2]);
}

TEST_CASE("router api: bad options name the option") {
  auto context = router_context();
  struct Case {
    const char* strategy;
    std::vector<Option> options;
    const char* mention;
    int32_t code = FRUGAL_ERR_INVALID_ARGUMENT;  // OUT_OF_RANGE: one value outside its range
  };
  constexpr int32_t kRange = FRUGAL_ERR_OUT_OF_RANGE;
  const Case cases[] = {
      {"topk_softmax", {}, "'experts' is required"},
      {"topk_softmax", {{"experts", int64_t{0}}}, "experts", kRange},
      {"topk_softmax", {{"experts", int64_t{4}}, {"k", int64_t{5}}}, "'k'", kRange},
      {"topk_softmax", {{"experts", int64_t{1}}}, "'k' defaults to 2"},
      {"topk_softmax", {{"experts", int64_t{4}}, {"color", "red"}}, "unknown option 'color'"},
      {"topk_softmax", {{"experts", int64_t{4}}, {"drop_policy", "position"}}, "needs a capacity"},
      {"topk_softmax", {{"experts", int64_t{4}}, {"capacity_factor", -1.0}}, "'capacity_factor' = -1", kRange},
      {"topk_softmax",
       {{"experts", int64_t{4}}, {"capacity_factor", 1.0}, {"drop_policy", "random"}},
       "'drop_policy' = 'random' is not one of"},
      {"topk_softmax", {{"experts", int64_t{4}}, {"aux_coef", -0.5}}, "'aux_coef' = -0.5", kRange},
      {"topk_softmax", {{"experts", int64_t{4}}, {"groups", int64_t{2}}}, "unknown option 'groups'"},
      {"topk_softmax", {{"experts", int64_t{4}}, {"k", "two"}}, "k"},
      {"deepseek_v3", {{"experts", int64_t{12}}, {"groups", int64_t{5}}, {"k", int64_t{2}}}, "must divide"},
      {"deepseek_v3",
       {{"experts", int64_t{16}}, {"groups", int64_t{4}}, {"topk_groups", int64_t{5}}},
       "topk_groups",
       kRange},
      {"deepseek_v3", {{"experts", int64_t{16}}, {"groups", int64_t{4}}, {"topk_groups", int64_t{1}}}, "exceeds"},
      {"deepseek_v3", {{"experts", int64_t{16}}, {"score", "tanh"}}, "'score' = 'tanh' is not one of"},
      {"deepseek_v3", {{"experts", int64_t{16}}, {"gamma", -0.1}}, "'gamma' = -0.1", kRange},
      {"deepseek_v3", {{"experts", int64_t{16}}, {"route_scale", 0.0}}, "'route_scale' = 0", kRange},
      {"deepseek_v3", {{"experts", int64_t{16}}, {"renormalize", true}}, "unknown option 'renormalize'"},
      {"expert_choice", {{"experts", int64_t{4}}, {"k", int64_t{1}}}, "unknown option 'k'"},
      {"expert_choice", {{"experts", int64_t{4}}, {"capacity_factor", 0.0}}, "'capacity_factor' = 0", kRange},
  };
  for (const Case& c : cases) {
    INFO(c.strategy << " " << c.mention);
    const auto options = make_quant_options(c.options);
    frugal_router* router = nullptr;
    expect_error(frugal_router_create(context.get(), c.strategy, options.get(), &router), c.code, {c.mention});
    CHECK(router == nullptr);
  }
}

TEST_CASE("router api: the layout and plan shapes follow the options") {
  auto context = router_context();
  auto dropless = make_router(context.get(), "topk_softmax", {{"experts", int64_t{8}}});
  frugal_route_layout l = layout_of(dropless.get());
  CHECK(l.choice == FRUGAL_ROUTER_TOKEN_CHOICE);
  CHECK(l.experts == 8);
  CHECK(l.top_k == 2);
  CHECK(l.drop_policy == FRUGAL_ROUTER_DROPLESS);
  CHECK(l.capacity_factor == 0.0);
  CHECK(l.flags == 0);
  HostPlan a(dropless.get(), 10);
  CHECK(a.shape.capacity == 0);
  CHECK(a.shape.max_rows == 20);

  auto ds =
      make_router(context.get(), "deepseek_v3", {{"experts", int64_t{8}}, {"k", int64_t{3}}, {"capacity_factor", 0.5}});
  l = layout_of(ds.get());
  CHECK(l.flags == FRUGAL_ROUTE_LAYOUT_BIAS);
  CHECK(l.drop_policy == FRUGAL_ROUTER_DROP_BY_PROBABILITY);
  HostPlan b(ds.get(), 10);
  CHECK(b.shape.capacity == 2);  // ceil(10 * 3 * 0.5 / 8) = ceil(1.875)
  CHECK(b.shape.max_rows == 16);

  auto ec = make_router(context.get(), "expert_choice", {{"experts", int64_t{4}}, {"capacity_factor", 8.0}});
  HostPlan c(ec.get(), 3);
  CHECK(c.shape.capacity == 3);  // ceil(3 * 8 / 4) = 6, clamped to the 3 tokens
  CHECK(c.shape.max_rows == 12);
}

TEST_CASE("router api: non-finite logits and foreign devices are refused with their reason") {
  auto context = router_context();
  auto router = make_router(context.get(), "topk_softmax", {{"experts", int64_t{4}}});
  auto logits = random_logits(FRUGAL_DTYPE_FLOAT32, 6, 4, 1);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(logits->at(3, 2), &nan, 4);
  HostPlan plan(router.get(), 6);
  expect_error(try_route(router.get(), logits->view, plan), FRUGAL_ERR_INVALID_ARGUMENT, {"route", "finite"});

#if !FRUGAL_TEST_ROUTER_CUDA
  // Without CUDA the plugin names what is missing; every tensor of the call
  // claims the device (the core checks they agree before the plugin runs).
  frugal_tensor on_gpu = logits->view;
  on_gpu.device = {FRUGAL_DEVICE_CUDA, 0};
  std::vector<frugal_tensor> plan_views;
  for (const frugal_tensor* t :
       {plan.plan.expert_ids, plan.plan.weights, plan.plan.dropped, plan.plan.slot_row, plan.plan.expert_offsets,
        plan.plan.expert_demand, plan.plan.row_token, plan.plan.row_weight, plan.plan.token_offsets,
        plan.plan.token_rows, plan.plan.mean_prob, plan.plan.losses}) {
    plan_views.push_back(*t);
    plan_views.back().device = {FRUGAL_DEVICE_CUDA, 0};
  }
  frugal_route_plan gpu_plan{sizeof(frugal_route_plan),
                             &plan_views[0],
                             &plan_views[1],
                             &plan_views[2],
                             &plan_views[3],
                             &plan_views[4],
                             &plan_views[5],
                             &plan_views[6],
                             &plan_views[7],
                             &plan_views[8],
                             &plan_views[9],
                             &plan_views[10],
                             &plan_views[11],
                             nullptr,
                             nullptr};
  const frugal_route_args args{sizeof(frugal_route_args), &on_gpu, &gpu_plan, nullptr};
  expect_error(frugal_router_route(router.get(), &args), FRUGAL_ERR_UNSUPPORTED, {"CUDA:0", "built without CUDA"});
#endif
}
