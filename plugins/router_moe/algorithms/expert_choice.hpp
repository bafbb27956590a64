// Expert-choice routing (Zhou et al. 2022, "Mixture-of-Experts with Expert
// Choice Routing"): every expert takes its C best tokens, so load is
// balanced by construction and a token may get 0 .. experts experts.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/dispatch_plan.hpp"
#include "algorithms/logits.hpp"

namespace frugal::router {

struct ExpertChoiceOptions {
  double capacity_factor = 1.0;  // c of the paper: C = ceil(tokens * c / experts), clamped to [1, tokens]
  unsigned threads = 0;          // 0: all hardware threads; results never depend on it
};

// [1, tokens]: C = ceil(tokens * capacity_factor / experts).
[[nodiscard]] int64_t expert_choice_capacity(int64_t tokens, int64_t experts, double capacity_factor);

// S = softmax over the experts per token (fp32, as the paper's
// Softmax(X W_g)); expert e picks the C tokens with the highest S[:, e]
// (ties to the lower token), and the gate weight of (token, e) is S[t, e].
// Returns the plan directly (k = 0: no slots, nothing dropped): expert e's
// rows are its tokens in increasing order; a token's rows combine in expert
// order.
[[nodiscard]] DispatchPlan expert_choice(const Logits& logits, const ExpertChoiceOptions& options);

// The plan plus P_i, the mean over tokens of S[:, i] (summed per block of
// 256 tokens in double, the blocks in order: the same bits for any thread
// count), for load statistics.
struct ExpertChoiceResult {
  DispatchPlan plan;
  std::vector<float> mean_prob;  // [experts]
};
[[nodiscard]] ExpertChoiceResult expert_choice_route(const Logits& logits, const ExpertChoiceOptions& options);

// The steps of expert_choice_route, for routers whose tokens are spread over
// ranks (algorithms/group_route.hpp):
//   expert_choice_scores: S, kept expert-major, and the sums behind P_i;
//   best_tokens: the `count` best tokens of one expert's column (score,
//     then lower token), in rising token order;
//   expert_choice_plan: the plan from each expert's picked tokens (rising),
//     weights from S, every expert's demand set to `demand`.
struct ExpertChoiceScores {
  int64_t tokens = 0;
  int64_t experts = 0;
  std::vector<float> scores;     // [experts, tokens]
  std::vector<double> prob_sum;  // [experts]
  [[nodiscard]] std::span<const float> column(int64_t e) const {
    return std::span<const float>(scores).subspan(static_cast<std::size_t>(e * tokens),
                                                  static_cast<std::size_t>(tokens));
  }
};
[[nodiscard]] ExpertChoiceScores expert_choice_scores(const Logits& logits, unsigned threads);
[[nodiscard]] std::vector<int64_t> best_tokens(std::span<const float> column, int64_t count);
[[nodiscard]] DispatchPlan expert_choice_plan(const ExpertChoiceScores& scores,
                                              const std::vector<std::vector<int64_t>>& picks, int64_t demand);

}  // namespace frugal::router
