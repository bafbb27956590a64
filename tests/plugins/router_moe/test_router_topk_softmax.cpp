// Top-k softmax router: losses on hand-checked cases, ties, renormalisation,
// half-precision logits and thread-count determinism.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "algorithms/losses.hpp"
#include "algorithms/topk_softmax.hpp"
#include "formats/half.hpp"
#include "router_test_support.hpp"

using namespace frugal::router;

namespace {

TopkSoftmaxResult route(const std::vector<float>& logits, int64_t tokens, int64_t experts, TopkSoftmaxOptions o) {
  return topk_softmax(fp32_logits(logits, tokens, experts), o);
}

}  // namespace

TEST_CASE("top-k softmax: aux loss and z-loss on hand-checked cases") {
  // Two tokens, logits [ln 3, 0]: p = [3/4, 1/4], both pick expert 0.
  // f = [1, 0], P = [3/4, 1/4]: L = alpha * 2 * 3/4 = 1.5 alpha;
  // logsumexp = ln 4 for both: z = (ln 4)^2 = 1.921812...
  const float ln3 = std::log(3.0f);
  TopkSoftmaxOptions o;
  o.k = 1;
  o.aux_coef = 0.01f;
  o.z_coef = 0.001f;
  const auto r = route({ln3, 0.0f, ln3, 0.0f}, 2, 2, o);
  CHECK(r.routing.expert == std::vector<int32_t>{0, 0});
  CHECK(r.routing.weight[0] == Approx(0.75f).epsilon(1e-6));
  CHECK(r.mean_prob[1] == Approx(0.25f).epsilon(1e-6));
  CHECK(r.load == std::vector<int64_t>{2, 0});
  CHECK(r.aux_loss == Approx(0.015).epsilon(1e-6));
  CHECK(r.z_loss == Approx(0.001 * 1.3862944 * 1.3862944).epsilon(1e-6));

  // Equal logits over 4 experts, k = 2: ties go to experts 0 and 1;
  // f = [1/2, 1/2, 0, 0], P = 1/4 each: L = 4 * (1/8 + 1/8) = 1 (uniform).
  o.k = 2;
  o.aux_coef = 1.0f;
  const auto u = route({0.5f, 0.5f, 0.5f, 0.5f}, 1, 4, o);
  CHECK(u.routing.expert == std::vector<int32_t>{0, 1});
  CHECK(u.routing.weight == std::vector<float>{0.25f, 0.25f});
  CHECK(u.aux_loss == Approx(1.0).epsilon(1e-6));
  // logsumexp = 0.5 + ln 4.
  CHECK(u.z_loss == Approx(0.001 * (0.5 + 1.3862944) * (0.5 + 1.3862944)).epsilon(1e-6));
}

TEST_CASE("top-k softmax: the loss functions follow their formulas") {
  // f = [2, 1, 1] / 4, P = [0.5, 0.3, 0.2]: 3 * (0.25 + 0.075 + 0.05) = 1.125.
  CHECK(load_balancing_loss(std::vector<int64_t>{2, 1, 1}, std::vector<float>{0.5f, 0.3f, 0.2f}, 2.0f) ==
        Approx(2.25).epsilon(1e-6));
  CHECK(load_balancing_loss(std::vector<int64_t>{0, 0}, std::vector<float>{0.5f, 0.5f}, 1.0f) == 0.0f);
  CHECK(z_loss(std::vector<float>{1.0f, -3.0f}, 0.5f) == Approx(0.5 * (1 + 9) / 2.0).epsilon(1e-7));
  CHECK_THROWS_AS(load_balancing_loss(std::vector<int64_t>{1}, std::vector<float>{0.5f, 0.5f}, 1.0f), RouterError);
}

TEST_CASE("top-k softmax: picks the largest probabilities, renormalises when asked") {
  const auto logits = test::normal_logits(300, 16, 1.5f, 7);
  TopkSoftmaxOptions o;
  o.k = 3;
  const auto plain = route(logits, 300, 16, o);
  o.renormalize = true;
  const auto renorm = route(logits, 300, 16, o);
  CHECK(plain.routing.expert == renorm.routing.expert);
  for (int64_t t = 0; t < 300; ++t) {
    // Probabilities in double from the logits, independently.
    const float* row = logits.data() + t * 16;
    double z = 0;
    for (int e = 0; e < 16; ++e) z += std::exp(double{row[e]});
    const auto ids = plain.routing.experts_of(t);
    double kept = 0;
    for (int j = 0; j < 3; ++j) {
      const double p = std::exp(double{row[ids[j]]}) / z;
      kept += p;
      CHECK(plain.routing.weights_of(t)[j] == Approx(p).margin(1e-6));
      // No unselected expert beats a selected one.
      for (int e = 0; e < 16; ++e) {
        if (e != ids[0] && e != ids[1] && e != ids[2]) CHECK(row[e] <= row[ids[j]]);
      }
    }
    for (int j = 0; j < 3; ++j) {
      CHECK(renorm.routing.weights_of(t)[j] == Approx(std::exp(double{row[ids[j]]}) / z / kept).margin(1e-6));
    }
  }
  double psum = 0;
  for (const float p : plain.mean_prob) psum += p;
  CHECK(psum == Approx(1.0).epsilon(1e-5));
}

TEST_CASE("top-k softmax: bf16 and fp16 logits route like fp32 logits of the same values") {
  const int64_t T = 200, E = 32;
  const auto raw = test::normal_logits(T, E, 2.0f, 11);
  std::vector<uint16_t> b16(raw.size()), h16(raw.size());
  std::vector<float> b_values(raw.size()), h_values(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    b16[i] = frugal::quant::fp32_to_bf16(raw[i]);
    h16[i] = frugal::quant::fp32_to_fp16(raw[i]);
    // The exact values those bits hold: bf16 is the top half of fp32.
    uint32_t bits = uint32_t{b16[i]} << 16;
    std::memcpy(&b_values[i], &bits, 4);
    h_values[i] = frugal::quant::fp16_to_fp32(h16[i]);
    REQUIRE(std::abs(h_values[i] - raw[i]) <= 1e-3f * std::max(1.0f, std::abs(raw[i])));
  }
  TopkSoftmaxOptions o;
  o.k = 4;
  const auto from_b16 = topk_softmax(bf16_logits(b16, T, E), o);
  const auto from_b32 = route(b_values, T, E, o);
  CHECK(from_b16.routing.expert == from_b32.routing.expert);
  CHECK(from_b16.routing.weight == from_b32.routing.weight);
  CHECK(from_b16.z_loss == from_b32.z_loss);
  const auto from_h16 = topk_softmax(fp16_logits(h16, T, E), o);
  const auto from_h32 = route(h_values, T, E, o);
  CHECK(from_h16.routing.expert == from_h32.routing.expert);
  CHECK(from_h16.routing.weight == from_h32.routing.weight);
  CHECK(from_h16.aux_loss == from_h32.aux_loss);
}

TEST_CASE("top-k softmax: identical results for any thread count") {
  const int64_t T = 1500, E = 24;  // 6 blocks of 256, the last one short
  const auto logits = test::normal_logits(T, E, 1.0f, 3);
  TopkSoftmaxOptions o;
  o.k = 2;
  o.threads = 1;
  const auto one = route(logits, T, E, o);
  for (unsigned threads : {2u, 3u, 8u}) {
    o.threads = threads;
    const auto many = route(logits, T, E, o);
    CHECK(many.routing.expert == one.routing.expert);
    CHECK(many.routing.weight == one.routing.weight);
    CHECK(many.mean_prob == one.mean_prob);
    CHECK(many.aux_loss == one.aux_loss);
    CHECK(many.z_loss == one.z_loss);
  }
}

TEST_CASE("top-k softmax: bad input is rejected") {
  TopkSoftmaxOptions o;
  o.k = 5;
  std::vector<float> four{0, 1, 2, 3};
  CHECK_THROWS_AS(route(four, 1, 4, o), RouterError);
  o.k = 1;
  four[2] = std::nanf("");
  CHECK_THROWS_WITH(route(four, 1, 4, o), Catch::Contains("not finite"));
  CHECK_THROWS_AS(fp32_logits(four, 2, 4), RouterError);
}
