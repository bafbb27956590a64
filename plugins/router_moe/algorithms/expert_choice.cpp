#include "algorithms/expert_choice.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "algorithms/capacity.hpp"
#include "algorithms/losses.hpp"
#include "algorithms/parallel.hpp"
#include "algorithms/softmax.hpp"

namespace frugal::router {

int64_t expert_choice_capacity(int64_t tokens, int64_t experts, double capacity_factor) {
  // The token-choice formula with k = 1, clamped to the tokens there are.
  return std::min(tokens, expert_capacity(tokens, 1, experts, capacity_factor));
}

DispatchPlan expert_choice(const Logits& logits, const ExpertChoiceOptions& options) {
  return expert_choice_route(logits, options).plan;
}

ExpertChoiceScores expert_choice_scores(const Logits& logits, unsigned threads) {
  validate(logits);
  ExpertChoiceScores s;
  s.tokens = logits.rows();
  s.experts = logits.cols();
  const int64_t T = s.tokens;
  const int64_t E = s.experts;
  // Scores kept expert-major ([E, T]) so each expert scans one contiguous column.
  s.scores.resize(static_cast<std::size_t>(E * T));
  constexpr int64_t kBlock = 256;
  const int64_t blocks = block_count(T, kBlock);
  std::vector<double> partial(static_cast<std::size_t>(blocks * E), 0.0);
  parallel_blocks(T, kBlock, threads, [&](int64_t b, int64_t begin, int64_t end) {
    std::vector<float> p(static_cast<std::size_t>(E));
    double* acc = partial.data() + b * E;
    for (int64_t t = begin; t < end; ++t) {
      widen_row(logits, t, p);
      softmax_row(p, p);
      for (int64_t e = 0; e < E; ++e) {
        s.scores[static_cast<std::size_t>(e * T + t)] = p[static_cast<std::size_t>(e)];
        acc[e] += p[static_cast<std::size_t>(e)];
      }
    }
  });
  s.prob_sum = add_blocks(partial, blocks, E);
  return s;
}

std::vector<int64_t> best_tokens(std::span<const float> col, int64_t count) {
  std::vector<int64_t> order(col.size());
  std::iota(order.begin(), order.end(), int64_t{0});
  const auto cut = order.begin() + static_cast<std::ptrdiff_t>(count);
  // A strict total order (score, then token), so the chosen set is unique.
  std::nth_element(order.begin(), cut, order.end(), [&](int64_t a, int64_t b) {
    const float sa = col[static_cast<std::size_t>(a)];
    const float sb = col[static_cast<std::size_t>(b)];
    return sa != sb ? sa > sb : a < b;
  });
  order.resize(static_cast<std::size_t>(count));
  std::sort(order.begin(), order.end());
  return order;
}

DispatchPlan expert_choice_plan(const ExpertChoiceScores& s, const std::vector<std::vector<int64_t>>& picks,
                                int64_t demand) {
  const auto E = static_cast<std::size_t>(s.experts);
  DispatchPlan plan;
  plan.tokens = s.tokens;
  plan.experts = s.experts;
  plan.expert_counts.assign(E, 0);
  plan.expert_demand.assign(E, demand);
  plan.expert_offsets.assign(E + 1, 0);
  for (std::size_t e = 0; e < E; ++e) {
    plan.expert_counts[e] = static_cast<int64_t>(picks[e].size());
    plan.expert_offsets[e + 1] = plan.expert_offsets[e] + plan.expert_counts[e];
  }
  const auto rows = static_cast<std::size_t>(plan.expert_offsets[E]);
  plan.row_token.resize(rows);
  plan.row_weight.resize(rows);
  for (std::size_t e = 0; e < E; ++e) {
    const std::span<const float> col = s.column(static_cast<int64_t>(e));
    auto row = static_cast<std::size_t>(plan.expert_offsets[e]);
    for (const int64_t t : picks[e]) {
      plan.row_token[row] = t;
      plan.row_weight[row] = col[static_cast<std::size_t>(t)];
      ++row;
    }
  }
  index_rows_by_token(plan);
  return plan;
}

ExpertChoiceResult expert_choice_route(const Logits& logits, const ExpertChoiceOptions& options) {
  const ExpertChoiceScores s = expert_choice_scores(logits, options.threads);
  const int64_t C = expert_choice_capacity(s.tokens, s.experts, options.capacity_factor);
  std::vector<std::vector<int64_t>> picks(static_cast<std::size_t>(s.experts));
  parallel_blocks(s.experts, 1, options.threads, [&](int64_t e, int64_t, int64_t) {
    picks[static_cast<std::size_t>(e)] = best_tokens(s.column(e), C);
  });
  ExpertChoiceResult result;
  result.plan = expert_choice_plan(s, picks, C);
  result.mean_prob = mean_prob_of(s.prob_sum, s.tokens);
  return result;
}

}  // namespace frugal::router
