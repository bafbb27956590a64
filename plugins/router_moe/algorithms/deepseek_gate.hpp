// The DeepSeek-V3 gate (DeepSeek-AI 2024, sec. 2.1.2 and its reference
// inference code): sigmoid or softmax scores, a per-expert bias that steers
// selection only, group-limited routing, weights from the unbiased scores.
#pragma once

#include <cstdint>
#include <span>

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
  unsigned threads = 0;     // 0: all hardware threads; results never depend on it
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
[[nodiscard]] Routing deepseek_v3_gate(const LogitRows& logits, std::span<const float> bias,
                                       const DeepSeekGateOptions& options);

}  // namespace frugal::router
