#include "algorithms/losses.hpp"

#include <string>

#include "algorithms/types.hpp"

namespace frugal::router {

float load_balancing_loss(std::span<const int64_t> assignments, std::span<const float> mean_prob, float coef) {
  if (assignments.size() != mean_prob.size()) {
    throw RouterError("aux loss: " + std::to_string(assignments.size()) + " loads but " +
                      std::to_string(mean_prob.size()) + " mean probabilities");
  }
  int64_t total = 0;
  for (const int64_t a : assignments) total += a;
  if (total == 0) return 0.0f;
  double dot = 0.0;
  for (std::size_t i = 0; i < assignments.size(); ++i) {
    dot += static_cast<double>(assignments[i]) / static_cast<double>(total) * mean_prob[i];
  }
  return static_cast<float>(coef * static_cast<double>(assignments.size()) * dot);
}

double square_sum(std::span<const float> logsumexp) {
  double sum = 0.0;
  for (const float z : logsumexp) sum += double{z} * double{z};
  return sum;
}

float z_loss_of_sum(double square_sum, int64_t tokens, float coef) {
  if (tokens == 0) return 0.0f;
  return static_cast<float>(coef * square_sum / static_cast<double>(tokens));
}

float z_loss(std::span<const float> logsumexp, float coef) {
  return z_loss_of_sum(square_sum(logsumexp), static_cast<int64_t>(logsumexp.size()), coef);
}

std::vector<double> add_blocks(std::span<const double> partial, int64_t blocks, int64_t experts) {
  std::vector<double> sums(static_cast<std::size_t>(experts), 0.0);
  for (int64_t e = 0; e < experts; ++e) {
    double s = 0.0;
    for (int64_t b = 0; b < blocks; ++b) s += partial[static_cast<std::size_t>(b * experts + e)];
    sums[static_cast<std::size_t>(e)] = s;
  }
  return sums;
}

std::vector<float> mean_prob_of(std::span<const double> sums, int64_t tokens) {
  std::vector<float> mean(sums.size());
  for (std::size_t e = 0; e < sums.size(); ++e) mean[e] = static_cast<float>(sums[e] / static_cast<double>(tokens));
  return mean;
}

}  // namespace frugal::router
