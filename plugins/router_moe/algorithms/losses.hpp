// Router auxiliary losses (values only; the plugin's backward pass derives
// their gradients from the same definitions).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace frugal::router {

// Switch / GShard load-balancing loss L = coef * E * sum_i f_i * P_i.
//   f_i = assignments[i] / sum(assignments): the share of the T * k routed
//         assignments that chose expert i, counted BEFORE capacity drops
//         (Switch Transformer, Fedus et al. 2021, eq. 4-6, counts the router's
//         argmax dispatch; GShard, Lepikhin et al. 2020, its top-1 counts;
//         we extend to top-k by counting all k choices, so f sums to 1 and a
//         uniform router gives L = coef).
//   P_i = mean_prob[i], the mean over tokens of the router probability.
// Accumulated in double, returned as float. 0 when there are no assignments.
[[nodiscard]] float load_balancing_loss(std::span<const int64_t> assignments, std::span<const float> mean_prob,
                                        float coef);

// Router z-loss (ST-MoE, Zoph et al. 2022): coef * mean_t logsumexp_t^2,
// summed in double in token order.
[[nodiscard]] float z_loss(std::span<const float> logsumexp, float coef);

// The pieces of both, for routers whose tokens are spread over ranks:
//   square_sum: sum_t logsumexp_t^2 in double, in token order;
//   z_loss_of_sum: coef * square_sum / tokens (0 without tokens);
//   add_blocks: per-expert sums of P's per-block partials ([blocks, E]),
//     the blocks added in order;
//   mean_prob_of: P_i = sum_i / tokens, as float.
[[nodiscard]] double square_sum(std::span<const float> logsumexp);
[[nodiscard]] float z_loss_of_sum(double square_sum, int64_t tokens, float coef);
[[nodiscard]] std::vector<double> add_blocks(std::span<const double> partial, int64_t blocks, int64_t experts);
[[nodiscard]] std::vector<float> mean_prob_of(std::span<const double> sums, int64_t tokens);

}  // namespace frugal::router
