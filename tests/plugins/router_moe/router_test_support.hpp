// Random inputs for the router tests (fixed seeds: every run sees the same
// data).
#pragma once

#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "algorithms/deepseek_gate.hpp"
#include "algorithms/types.hpp"

namespace frugal::router::test {

inline DeepSeekGateOptions gate(int64_t k, int64_t groups, int64_t topk_groups, float route_scale = 1.0f) {
  DeepSeekGateOptions o;
  o.k = k;
  o.groups = groups;
  o.topk_groups = topk_groups;
  o.route_scale = route_scale;
  return o;
}

inline std::vector<float> normal_logits(int64_t tokens, int64_t experts, float sigma, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> d(0.0f, sigma);
  std::vector<float> v(static_cast<std::size_t>(tokens * experts));
  for (float& x : v) x = d(rng);
  return v;
}

// k distinct experts per token, uniform weights in (0, 1); some weights are
// repeated on purpose so ties in the drop order are exercised.
inline Routing random_routing(int64_t tokens, int64_t experts, int64_t k, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Routing r{tokens, experts, k, {}, {}};
  std::vector<int32_t> ids(static_cast<std::size_t>(experts));
  std::iota(ids.begin(), ids.end(), 0);
  std::uniform_int_distribution<int> level(1, 16);
  for (int64_t t = 0; t < tokens; ++t) {
    // A skewed partial shuffle: low expert ids are chosen more often.
    for (int64_t j = 0; j < k; ++j) {
      std::uniform_int_distribution<int64_t> pick(j, std::min(experts - 1, j + experts / 2));
      std::swap(ids[static_cast<std::size_t>(j)], ids[static_cast<std::size_t>(pick(rng))]);
      r.expert.push_back(ids[static_cast<std::size_t>(j)]);
      r.weight.push_back(static_cast<float>(level(rng)) / 16.0f);
    }
  }
  return r;
}

}  // namespace frugal::router::test
