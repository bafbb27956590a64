// Numerically stable softmax of one row in fp32, shared by the routers.
// exp and log come from router_math.hpp, whose bits the CUDA kernels share.
#pragma once

#include <algorithm>
#include <span>

#include "algorithms/router_math.hpp"

namespace frugal::router {

// out = softmax(x) (out may alias x); returns logsumexp(x). The max is taken
// out first so exp never overflows; the sum runs in index order in fp32.
inline float softmax_row(std::span<const float> x, std::span<float> out) noexcept {
  const float max = *std::max_element(x.begin(), x.end());
  float sum = 0.0f;
  for (std::size_t i = 0; i < x.size(); ++i) {
    out[i] = math::exp_f32(x[i] - max);
    sum += out[i];
  }
  const float inv = 1.0f / sum;  // sum >= 1: the max contributes exp(0)
  for (std::size_t i = 0; i < x.size(); ++i) out[i] *= inv;
  return max + math::log_f32(sum);
}

// logsumexp(x) alone, summed in the same order as softmax_row, so both give
// the same bits.
inline float logsumexp_row(std::span<const float> x) noexcept {
  const float max = *std::max_element(x.begin(), x.end());
  float sum = 0.0f;
  for (const float v : x) sum += math::exp_f32(v - max);
  return max + math::log_f32(sum);
}

}  // namespace frugal::router
