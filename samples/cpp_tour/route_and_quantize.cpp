// Tour steps 4-5 (samples/README.md): routing tokens to experts with the
// topk_softmax router, and an FP8 (E4M3) quantize / dequantize round trip
// with current scaling. Expectations are recomputed here from the inputs.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "frugal/frugal.h"
#include "frugal/sdk/host.hpp"
#include "tour.hpp"

namespace tour {
namespace {

constexpr int64_t kTokens = 64;
constexpr int64_t kExperts = 8;
constexpr int64_t kK = 2;
constexpr std::size_t kSlots = static_cast<std::size_t>(kTokens * kK);

// A plan for kTokens tokens: host arrays and the views route writes
// through. Token choice never needs more than T * k rows, so every row
// array has kSlots entries and the views say max_rows.
class RoutePlan {
 public:
  explicit RoutePlan(int64_t max_rows)
      : expert_ids_t_(expert_ids.data(), FRUGAL_DTYPE_INT32, {kTokens, kK}),
        weights_t_(weights.data(), FRUGAL_DTYPE_FLOAT32, {kTokens, kK}),
        dropped_t_(dropped.data(), FRUGAL_DTYPE_UINT8, {kTokens, kK}),
        slot_row_t_(slot_row_.data(), FRUGAL_DTYPE_INT64, {kTokens, kK}),
        expert_offsets_t_(expert_offsets_.data(), FRUGAL_DTYPE_INT64, {kExperts + 1}),
        expert_demand_t_(expert_demand.data(), FRUGAL_DTYPE_INT64, {kExperts}),
        row_token_t_(row_token_.data(), FRUGAL_DTYPE_INT64, {max_rows}),
        row_weight_t_(row_weight_.data(), FRUGAL_DTYPE_FLOAT32, {max_rows}),
        token_offsets_t_(token_offsets_.data(), FRUGAL_DTYPE_INT64, {kTokens + 1}),
        token_rows_t_(token_rows_.data(), FRUGAL_DTYPE_INT64, {max_rows}),
        mean_prob_t_(mean_prob_.data(), FRUGAL_DTYPE_FLOAT32, {kExperts}),
        losses_t_(losses_.data(), FRUGAL_DTYPE_FLOAT32, {2}) {
    if (max_rows > static_cast<int64_t>(kSlots))
      throw Mismatch("route: the plan asks for " + std::to_string(max_rows) + " rows; token choice needs at most " +
                     std::to_string(kSlots));
    plan_.struct_size = sizeof(plan_);
    plan_.expert_ids = expert_ids_t_.get();
    plan_.weights = weights_t_.get();
    plan_.dropped = dropped_t_.get();
    plan_.slot_row = slot_row_t_.get();
    plan_.expert_offsets = expert_offsets_t_.get();
    plan_.expert_demand = expert_demand_t_.get();
    plan_.row_token = row_token_t_.get();
    plan_.row_weight = row_weight_t_.get();
    plan_.token_offsets = token_offsets_t_.get();
    plan_.token_rows = token_rows_t_.get();
    plan_.mean_prob = mean_prob_t_.get();
    plan_.losses = losses_t_.get();
  }

  const frugal_route_plan* get() const noexcept { return &plan_; }

  // What the checks read.
  std::array<int32_t, kSlots> expert_ids{};
  std::array<float, kSlots> weights{};
  std::array<uint8_t, kSlots> dropped{};
  std::array<int64_t, kExperts> expert_demand{};

 private:
  std::array<int64_t, kSlots> slot_row_{};
  std::array<int64_t, kExperts + 1> expert_offsets_{};
  std::array<int64_t, kSlots> row_token_{};
  std::array<float, kSlots> row_weight_{};
  std::array<int64_t, kTokens + 1> token_offsets_{};
  std::array<int64_t, kSlots> token_rows_{};
  std::array<float, kExperts> mean_prob_{};
  std::array<float, 2> losses_{};
  HostTensor expert_ids_t_, weights_t_, dropped_t_, slot_row_t_, expert_offsets_t_, expert_demand_t_, row_token_t_,
      row_weight_t_, token_offsets_t_, token_rows_t_, mean_prob_t_, losses_t_;
  frugal_route_plan plan_{};
};

// Every check of step 4 on a routed plan.
void check_routing(const std::vector<float>& logits, const RoutePlan& plan) {
  for (std::size_t s = 0; s < kSlots; ++s) {
    if (plan.dropped[s] != 0) throw mismatch("route: token %zu's choice %zu was dropped", s / kK, s % kK);
  }
  for (std::size_t t = 0; t < static_cast<std::size_t>(kTokens); ++t) {
    const float* row = logits.data() + t * kExperts;
    // The two largest logits, best first (ties between random floats do not occur).
    std::array<int32_t, kExperts> order{};
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + 2, order.end(),
                      [row](int32_t a, int32_t b) { return row[a] > row[b]; });
    const int32_t best = order[0], second = order[1];
    const int32_t* ids = plan.expert_ids.data() + t * kK;
    const float* w = plan.weights.data() + t * kK;
    if (ids[0] != best || ids[1] != second) {
      throw mismatch("route: token %zu went to experts %d and %d; its two largest logits are experts %d and %d", t,
                     ids[0], ids[1], best, second);
    }
    // Softmax restricted to the two chosen experts (renormalize=true).
    const double e_second = std::exp(static_cast<double>(row[second]) - static_cast<double>(row[best]));
    const double want0 = 1.0 / (1.0 + e_second), want1 = e_second / (1.0 + e_second);
    const double w0 = w[0], w1 = w[1];
    if (std::abs(w0 + w1 - 1.0) > 1e-5) throw mismatch("route: token %zu's weights sum to %.7f, not 1", t, w0 + w1);
    if (std::abs(w0 - want0) > 1e-5 || std::abs(w1 - want1) > 1e-5) {
      throw mismatch("route: token %zu's weights are %.7f %.7f; the softmax of its two logits gives %.7f %.7f", t, w0,
                     w1, want0, want1);
    }
  }
  const int64_t load_sum = std::accumulate(plan.expert_demand.begin(), plan.expert_demand.end(), int64_t{0});
  if (load_sum != static_cast<int64_t>(kSlots))
    throw mismatch("route: expert loads sum to %lld, not %zu", static_cast<long long>(load_sum), kSlots);
  std::printf("route: %lld tokens to %lld experts, top-%lld, none dropped, loads", static_cast<long long>(kTokens),
              static_cast<long long>(kExperts), static_cast<long long>(kK));
  for (const int64_t load : plan.expert_demand) std::printf(" %lld", static_cast<long long>(load));
  std::printf(" (sum %lld)\n", static_cast<long long>(load_sum));
}

constexpr int64_t kRows = 32;
constexpr int64_t kCols = 64;
constexpr std::size_t kElements = static_cast<std::size_t>(kRows * kCols);

// Every check of step 5: the scale, then each element's round trip.
void check_round_trip(const std::vector<float>& x, const std::vector<float>& y, float scale) {
  constexpr double kE4M3Max = 448.0;
  double amax = 0.0;
  for (const float v : x) amax = std::max(amax, std::abs(static_cast<double>(v)));
  if (std::abs(amax * scale - kE4M3Max) > 1e-6 * kE4M3Max)
    throw mismatch("quantize: the scale %.9g maps amax %.9g to %.9g, not 448", static_cast<double>(scale), amax,
                   amax * scale);
  double worst = 0.0;
  for (std::size_t i = 0; i < kElements; ++i) {
    // Half a step of E4M3: 3 mantissa bits (2^-4 relative), or half the
    // subnormal step 2^-9 brought back to the input's scale.
    const double error = std::abs(static_cast<double>(x[i]) - static_cast<double>(y[i]));
    const double bound = std::abs(static_cast<double>(x[i])) / 16.0 + amax / kE4M3Max * 0x1p-10;
    if (error > bound) {
      throw mismatch("quantize: element %zu: %.9g came back as %.9g (error %.3g > bound %.3g)", i,
                     static_cast<double>(x[i]), static_cast<double>(y[i]), error, bound);
    }
    worst = std::max(worst, error);
  }
  std::printf("quantize: e4m3 current scaling of [%lld, %lld]: amax %.6f, scale %.6f, largest round-trip error %.6f\n",
              static_cast<long long>(kRows), static_cast<long long>(kCols), amax, static_cast<double>(scale), worst);
}

}  // namespace

void route_step(host::Context& context) {
  Lcg rng(11);
  std::vector<float> logits(static_cast<std::size_t>(kTokens * kExperts));
  for (auto& logit : logits) logit = rng.uniform() * 4.0f;

  host::Options options;
  // topk_softmax's default is renormalize=false (weights are the full
  // softmax's probabilities); the tour wants the two weights to sum to 1.
  options.set("experts", kExperts).set("k", kK).set("capacity_factor", 8.0).set("renormalize", true);
  const host::RouterPtr router = host::make_router(context.get(), "topk_softmax", options.get());
  frugal_route_shape shape{};
  shape.struct_size = sizeof(shape);
  host::check(frugal_router_plan_shape(router.get(), kTokens, &shape));
  const RoutePlan plan(shape.max_rows);
  const HostTensor logits_t(logits.data(), FRUGAL_DTYPE_FLOAT32, {kTokens, kExperts});
  frugal_route_args args{};
  args.struct_size = sizeof(args);
  args.logits = logits_t.get();
  args.plan = plan.get();
  host::check(frugal_router_route(router.get(), &args));
  check_routing(logits, plan);
}

void quantize_step(host::Context& context) {
  Lcg rng(13);
  std::vector<float> x(kElements), y(kElements);
  std::vector<uint8_t> codes(kElements);
  for (auto& v : x) v = rng.uniform() * 3.0f;

  host::Options options;
  options.set("format", "e4m3").set("recipe", "current");
  const host::QuantizerPtr quantizer = host::make_quantizer(context.get(), "quant_fp8", options.get());
  frugal_quant_layout layout{};
  layout.struct_size = sizeof(layout);
  host::check(frugal_quantizer_layout(quantizer.get(), &layout));

  // One scale per tensor (current scaling), laid out as the quantizer says.
  float scale = 0.0f, scale_inv = 0.0f;
  const HostTensor scale_t(&scale, FRUGAL_DTYPE_FLOAT32, {1});
  const HostTensor scale_inv_t(&scale_inv, FRUGAL_DTYPE_FLOAT32, {1});
  frugal_quant_meta meta{};
  meta.struct_size = sizeof(meta);
  meta.scaling_mode = layout.scaling_mode;
  meta.block_rows = layout.block_rows;
  meta.block_cols = layout.block_cols;
  meta.scale = scale_t.get();
  meta.scale_inv = scale_inv_t.get();

  const HostTensor in(x.data(), FRUGAL_DTYPE_FLOAT32, {kRows, kCols});
  HostTensor out(codes.data(), layout.dtype, {kRows, kCols});
  out.set_quant(&meta);
  const HostTensor back(y.data(), FRUGAL_DTYPE_FLOAT32, {kRows, kCols});
  frugal_quantize_args args{};
  args.struct_size = sizeof(args);
  args.input = in.get();
  args.output = out.get();
  host::check(frugal_quantizer_quantize(quantizer.get(), &args));
  const frugal_dequantize_args dequantize{sizeof(frugal_dequantize_args), out.get(), back.get(), nullptr};
  host::check(frugal_quantizer_dequantize(quantizer.get(), &dequantize));
  check_round_trip(x, y, scale);
}

}  // namespace tour
