// The scalar pieces the router_moe CUDA kernels share with the host
// (plugins/router_moe/cuda/scalar_ops.hpp), compiled here by the host
// compiler and checked against the CPU reference on this machine:
//   - order_key sorts like fp32 comparisons (the two zeros equal);
//   - a stable sort by expert_weight_key keeps, per expert, the same
//     assignments build_dispatch_plan's by-probability drop keeps;
//   - combine_step, folded over a token's rows, gives combine_rows' bits
//     for fp32 and bf16, NaN payloads, infinities and zeros included.
// Runs on the CPU; built with the CUDA path only.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "algorithms/dispatch_plan.hpp"
#include "algorithms/permute.hpp"
#include "cuda/scalar_ops.hpp"
#include "formats/half.hpp"

namespace sc = frugal::router::cuda::scalar;
namespace fr = frugal::router;

namespace {

float from_bits(uint32_t u) { return std::bit_cast<float>(u); }
uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

std::vector<float> interesting_floats() {
  std::vector<float> v = {0.0f,
                          -0.0f,
                          1.0f,
                          -1.0f,
                          0.5f,
                          0.25f,
                          1e-30f,
                          -1e-30f,
                          std::numeric_limits<float>::denorm_min(),
                          -std::numeric_limits<float>::denorm_min(),
                          std::numeric_limits<float>::max(),
                          -std::numeric_limits<float>::max(),
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity()};
  std::mt19937 rng(3);
  std::uniform_int_distribution<uint32_t> any;
  for (int i = 0; i < 2000; ++i) {
    const float f = from_bits(any(rng));
    if (!std::isnan(f)) v.push_back(f);
  }
  return v;
}

}  // namespace

TEST_CASE("router CUDA port: order keys sort like fp32 comparisons") {
  const std::vector<float> v = interesting_floats();
  int64_t wrong = 0;
  for (const float a : v) {
    for (std::size_t j = 0; j < v.size(); j += 7) {
      const float b = v[j];
      wrong += (a < b) != (sc::order_key(a) < sc::order_key(b));
      wrong += (a == b) != (sc::order_key(a) == sc::order_key(b));
    }
  }
  CHECK(wrong == 0);
  // NaNs land outside every number.
  CHECK(sc::order_key(from_bits(0x7FC0'0000u)) > sc::order_key(std::numeric_limits<float>::infinity()));
  CHECK(sc::order_key(from_bits(0xFFC0'0000u)) < sc::order_key(-std::numeric_limits<float>::infinity()));
}

TEST_CASE("router CUDA port: the by-probability key keeps what build_dispatch_plan keeps") {
  std::mt19937_64 rng(11);
  for (const int64_t experts : {1, 4, 37}) {
    const int64_t tokens = 300;
    const int64_t k = std::min<int64_t>(3, experts);
    fr::Routing r{tokens, experts, k, {}, {}};
    std::uniform_int_distribution<int32_t> expert(0, static_cast<int32_t>(experts - 1));
    std::uniform_int_distribution<int> level(0, 6);  // few levels: many ties
    for (int64_t s = 0; s < tokens * k; ++s) {
      r.expert.push_back(expert(rng));
      const int l = level(rng);
      r.weight.push_back(l == 0 ? -0.0f : static_cast<float>(l) / 8.0f);
    }
    const fr::CapacityOptions cap{fr::DropPolicy::by_probability, 0.5};
    const fr::DispatchPlan plan = fr::build_dispatch_plan(r, cap);
    const int64_t c = fr::expert_capacity(tokens, k, experts, 0.5);

    // The kernel's way: a stable sort of the slots by key, keep rank < C.
    std::vector<int64_t> order(static_cast<std::size_t>(tokens * k));
    std::iota(order.begin(), order.end(), int64_t{0});
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return sc::expert_weight_key(r.expert[static_cast<std::size_t>(a)], r.weight[static_cast<std::size_t>(a)]) <
             sc::expert_weight_key(r.expert[static_cast<std::size_t>(b)], r.weight[static_cast<std::size_t>(b)]);
    });
    std::vector<uint8_t> dropped(order.size(), 1);
    std::vector<int64_t> rank(static_cast<std::size_t>(experts), 0);
    for (const int64_t s : order) {
      const int32_t e = r.expert[static_cast<std::size_t>(s)];
      if (rank[static_cast<std::size_t>(e)]++ < c) dropped[static_cast<std::size_t>(s)] = 0;
    }
    INFO("experts " << experts);
    CHECK(dropped == plan.dropped);
  }
}

namespace {

struct Rows {
  std::vector<int64_t> offsets, rows;
  std::vector<float> weights;
};

// Token t has t % 5 rows (0 .. 4), picked at random, each weight finite.
Rows random_rows(int64_t tokens, int64_t rows, std::mt19937_64& rng) {
  Rows r;
  r.offsets.push_back(0);
  std::uniform_int_distribution<int64_t> pick(0, rows - 1);
  for (int64_t t = 0; t < tokens; ++t) {
    for (int64_t i = 0; i < t % 5; ++i) r.rows.push_back(pick(rng));
    r.offsets.push_back(static_cast<int64_t>(r.rows.size()));
  }
  std::uniform_real_distribution<float> w(-1.0f, 1.0f);
  for (int64_t i = 0; i < rows; ++i) r.weights.push_back(i % 11 == 0 ? 0.0f : w(rng));
  return r;
}

// Activations with NaNs of several payloads and signs, infinities, zeros.
std::vector<float> random_activations(std::size_t n, std::mt19937_64& rng) {
  std::vector<float> v(n);
  std::normal_distribution<float> d(0.0f, 3.0f);
  std::uniform_int_distribution<int> kind(0, 19);
  std::uniform_int_distribution<uint32_t> payload(1, 0x003F'FFFFu);
  for (float& x : v) {
    switch (kind(rng)) {
      case 0: x = from_bits(0x7F80'0000u | payload(rng)); break;  // signalling NaN
      case 1: x = from_bits(0xFFC0'0000u | payload(rng)); break;  // negative quiet NaN
      case 2: x = std::numeric_limits<float>::infinity(); break;
      case 3: x = -std::numeric_limits<float>::infinity(); break;
      case 4: x = -0.0f; break;
      default: x = d(rng);
    }
  }
  return v;
}

}  // namespace

TEST_CASE("router CUDA port: combine_step folds to combine_rows' bits") {
  std::mt19937_64 rng(5);
  const int64_t tokens = 40;
  const int64_t rows = 60;
  for (const int64_t hidden : {1, 3, 8, 17, 64}) {
    const Rows plan = random_rows(tokens, rows, rng);
    const std::vector<float> y = random_activations(static_cast<std::size_t>(rows * hidden), rng);
    std::vector<uint16_t> y16(y.size());
    for (std::size_t i = 0; i < y.size(); ++i) y16[i] = frugal::quant::fp32_to_bf16(y[i]);

    std::vector<float> cpu(static_cast<std::size_t>(tokens * hidden));
    std::vector<uint16_t> cpu16(cpu.size());
    using frugal::sdk::MatrixView;
    fr::combine_rows<float>(plan.offsets, plan.rows, plan.weights, MatrixView<const float>(y, rows, hidden),
                            MatrixView<float>(cpu, tokens, hidden), 1);
    fr::combine_rows<uint16_t>(plan.offsets, plan.rows, plan.weights, MatrixView<const uint16_t>(y16, rows, hidden),
                               MatrixView<uint16_t>(cpu16, tokens, hidden), 1);
    int64_t differ = 0;
    int64_t differ16 = 0;
    for (int64_t t = 0; t < tokens; ++t) {
      for (int64_t h = 0; h < hidden; ++h) {
        float acc = 0.0f;
        float acc16 = 0.0f;
        for (int64_t i = plan.offsets[static_cast<std::size_t>(t)]; i < plan.offsets[static_cast<std::size_t>(t) + 1];
             ++i) {
          const int64_t r = plan.rows[static_cast<std::size_t>(i)];
          const float w = plan.weights[static_cast<std::size_t>(r)];
          const auto at = static_cast<std::size_t>(r * hidden + h);
          acc = sc::combine_step(acc, w, y[at]);
          acc16 = sc::combine_step(acc16, w, frugal::quant::bf16_to_fp32(y16[at]));
        }
        const auto out = static_cast<std::size_t>(t * hidden + h);
        differ += bits(acc) != bits(cpu[out]);
        differ16 += frugal::quant::fp32_to_bf16(acc16) != cpu16[out];
      }
    }
    INFO("hidden " << hidden);
    CHECK(differ == 0);
    CHECK(differ16 == 0);
  }
}
