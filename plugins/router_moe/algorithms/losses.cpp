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

float z_loss(std::span<const float> logsumexp, float coef) {
  if (logsumexp.empty()) return 0.0f;
  double sum = 0.0;
  for (const float z : logsumexp) sum += double{z} * double{z};
  return static_cast<float>(coef * sum / static_cast<double>(logsumexp.size()));
}

}  // namespace frugal::router
