// The classic token-choice router: softmax over the experts, top-k, with the
// Switch / GShard load-balancing loss and the router z-loss.
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/logits.hpp"
#include "algorithms/types.hpp"

namespace frugal::router {

struct TopkSoftmaxOptions {
  int64_t k = 2;             // 1 .. experts
  bool renormalize = false;  // weights divided by the sum of the k selected probabilities
  float aux_coef = 1.0f;     // alpha of load_balancing_loss (reported with it applied)
  float z_coef = 1.0f;       // coefficient of z_loss
  unsigned threads = 0;      // 0: all hardware threads; results never depend on it
};

struct TopkSoftmaxResult {
  Routing routing;               // weights = the selected probabilities (renormalised if asked)
  std::vector<float> mean_prob;  // P_i [experts]: mean over tokens of softmax(logits)_i
  std::vector<double> prob_sum;  // [experts]: the sums behind mean_prob (for a group's P_i)
  double lse_square_sum = 0.0;   // sum_t logsumexp_t^2 (for a group's z-loss)
  std::vector<int64_t> load;     // assignments per expert before capacity drops [experts]
  float aux_loss = 0.0f;         // aux_coef * E * sum_i f_i P_i (see losses.hpp)
  float z_loss = 0.0f;           // z_coef * mean_t logsumexp_t^2
};

// Per token: p = softmax(logits) in fp32, top-k of p (ties to the lower
// expert index), weights p[selected]. P_i is summed per block of tokens in
// double and the blocks in order, so every thread count gives the same bits.
[[nodiscard]] TopkSoftmaxResult topk_softmax(const Logits& logits, const TopkSoftmaxOptions& options);

}  // namespace frugal::router
