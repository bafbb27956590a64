#include "algorithms/young_daly.hpp"

#include <cmath>
#include <stdexcept>

namespace frugal::policy {

double young_interval(double cost_s, double mtbf_s) noexcept { return std::sqrt(2.0 * cost_s * mtbf_s); }

double daly_interval(double cost_s, double mtbf_s) noexcept {
  if (cost_s >= 2.0 * mtbf_s) return mtbf_s;
  const double ratio = cost_s / mtbf_s;
  return young_interval(cost_s, mtbf_s) * (1.0 + std::sqrt(ratio / 2.0) / 3.0 + ratio / 18.0) - cost_s;
}

CheckpointCostModel::CheckpointCostModel(double prior_cost_s, double prior_mtbf_s)
    : prior_mtbf_s_(prior_mtbf_s), cost_s_(prior_cost_s) {
  if (!(std::isfinite(prior_cost_s) && prior_cost_s > 0.0 && std::isfinite(prior_mtbf_s) && prior_mtbf_s > 0.0))
    throw std::invalid_argument("checkpoint cost and MTBF priors must be finite and > 0");
}

void CheckpointCostModel::save(sdk::StateWriter& out) const { out.f64(cost_s_).f64(clock_s_).i64(restarts_); }

void CheckpointCostModel::load(sdk::StateReader& in) {
  const double cost = in.above("checkpoint_cost_s", 0.0);
  const double clock = in.at_least("clock_s", 0.0);
  const int64_t restarts = in.counter("restarts");
  cost_s_ = cost;
  clock_s_ = clock;
  restarts_ = restarts;
}

}  // namespace frugal::policy
