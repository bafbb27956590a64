// The DeepSeek-V3 gate (DeepSeek-AI 2024, sec. 2.1.2 and its reference
// inference code): sigmoid or softmax scores, a per-expert bias that steers
// selection only, group-limited routing, weights from the unbiased scores.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/logits.hpp"
#include "algorithms/types.hpp"

namespace frugal::router {

enum class ScoreFunction { sigmoid, softmax };

struct DeepSeekGateOptions {
  ScoreFunction score = ScoreFunction::sigmoid;
  int64_t k = 8;            // experts per token
  int64_t groups = 1;       // contiguous expert groups; must divide experts
  int64_t topk_groups = 1;  // groups kept per token, 1 .. groups
  float route_scale = 1.0f;
  float aux_coef = 0.0f;  // alpha of the balance loss (DeepSeek-V3's sequence-wise one: ~1e-4; 0 = aux-loss-free)
  float z_coef = 0.0f;    // coefficient of the router z-loss over the logits
  unsigned threads = 0;   // 0: all hardware threads; results never depend on it
};

// Added to the sum of the selected sigmoid scores before dividing, as in the
// public implementations: 0 / (0 + 1e-20) = 0 when every selected score
// underflowed, so the weights stay finite (zero) instead of 0 / 0 = NaN. Any
// real sum (>= 2^-149 per score) dwarfs it only below fp32 resolution.
inline constexpr float kRenormEpsilon = 1e-20f;

// Per token, in fp32:
//   s = sigmoid(logits) or softmax(logits); b = s + bias (bias empty: b = s);
//   groups > 1: group score = sum of the top-2 of b in the group when a bias
//     is given (its max when the group has one expert), else max of s; the
//     topk_groups best groups are kept (ties to the lower group) and every
//     other expert's b is set to -inf (never 0: a zero could still beat
//     negative biased scores);
//   selected = top-k of b (ties to the lower expert);
//   w = s[selected]; sigmoid: w /= (sum(w) + kRenormEpsilon); w *= route_scale.
// Throws RouterError for bad sizes, k above the experts the kept groups
// hold, or a bias of the wrong length or with a non-finite value.
[[nodiscard]] Routing deepseek_v3_gate(const Logits& logits, std::span<const float> bias,
                                       const DeepSeekGateOptions& options);

// The gate plus what a training step logs and the host adds to its loss.
struct DeepSeekGateResult {
  Routing routing;
  // P_i: mean over tokens of the normalised score s_i / sum_j s_j (the
  // balance loss of DeepSeek-V3, eq. 17-20, taken over the batch); summed
  // per block of tokens in double and the blocks in order.
  std::vector<float> mean_prob;
  std::vector<double> prob_sum;  // [experts]: the sums behind mean_prob (for a group's P_i)
  double lse_square_sum = 0.0;   // sum_t logsumexp_t^2 when z_coef != 0, else 0
  std::vector<int64_t> load;     // assignments per expert, before capacity drops
  float aux_loss = 0.0f;         // aux_coef * E * sum_i f_i P_i (losses.hpp)
  float z_loss = 0.0f;           // z_coef * mean_t logsumexp(logits_t)^2; computed only when z_coef != 0
};
[[nodiscard]] DeepSeekGateResult deepseek_v3_route(const Logits& logits, std::span<const float> bias,
                                                   const DeepSeekGateOptions& options);

}  // namespace frugal::router
