#include "algorithms/expert_choice.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "algorithms/capacity.hpp"
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

ExpertChoiceResult expert_choice_route(const Logits& logits, const ExpertChoiceOptions& options) {
  validate(logits);
  const int64_t T = logits.rows();
  const int64_t E = logits.cols();
  const int64_t C = expert_choice_capacity(T, E, options.capacity_factor);

  // Scores kept expert-major ([E, T]) so each expert scans one contiguous column.
  std::vector<float> scores(static_cast<std::size_t>(E * T));
  constexpr int64_t kBlock = 256;
  std::vector<double> partial(static_cast<std::size_t>(block_count(T, kBlock) * E), 0.0);
  parallel_blocks(T, kBlock, options.threads, [&](int64_t b, int64_t begin, int64_t end) {
    std::vector<float> p(static_cast<std::size_t>(E));
    double* acc = partial.data() + b * E;
    for (int64_t t = begin; t < end; ++t) {
      widen_row(logits, t, p);
      softmax_row(p, p);
      for (int64_t e = 0; e < E; ++e) {
        scores[static_cast<std::size_t>(e * T + t)] = p[static_cast<std::size_t>(e)];
        acc[e] += p[static_cast<std::size_t>(e)];
      }
    }
  });

  ExpertChoiceResult result;
  result.mean_prob.assign(static_cast<std::size_t>(E), 0.0f);
  for (int64_t e = 0; e < E; ++e) {
    double sum = 0.0;
    for (int64_t b = 0; b < block_count(T, kBlock); ++b) sum += partial[static_cast<std::size_t>(b * E + e)];
    result.mean_prob[static_cast<std::size_t>(e)] = static_cast<float>(sum / static_cast<double>(T));
  }
  DispatchPlan& plan = result.plan;
  plan.tokens = T;
  plan.experts = E;
  plan.expert_counts.assign(static_cast<std::size_t>(E), C);
  plan.expert_demand = plan.expert_counts;
  plan.expert_offsets.resize(static_cast<std::size_t>(E) + 1);
  for (int64_t e = 0; e <= E; ++e) plan.expert_offsets[static_cast<std::size_t>(e)] = e * C;
  plan.row_token.resize(static_cast<std::size_t>(E * C));
  plan.row_weight.resize(static_cast<std::size_t>(E * C));

  parallel_blocks(E, 1, options.threads, [&](int64_t e, int64_t, int64_t) {
    const float* col = scores.data() + e * T;
    std::vector<int64_t> order(static_cast<std::size_t>(T));
    std::iota(order.begin(), order.end(), int64_t{0});
    const auto cut = order.begin() + static_cast<std::ptrdiff_t>(C);
    // A strict total order (score, then token), so the chosen set is unique.
    std::nth_element(order.begin(), cut, order.end(),
                     [&](int64_t a, int64_t b) { return col[a] != col[b] ? col[a] > col[b] : a < b; });
    std::sort(order.begin(), cut);
    for (int64_t i = 0; i < C; ++i) {
      const auto row = static_cast<std::size_t>(e * C + i);
      plan.row_token[row] = order[static_cast<std::size_t>(i)];
      plan.row_weight[row] = col[order[static_cast<std::size_t>(i)]];
    }
  });
  index_rows_by_token(plan);
  return result;
}

}  // namespace frugal::router
