#include "algorithms/load_stats.hpp"

#include <algorithm>

namespace frugal::router {

LoadStats load_stats(const DispatchPlan& plan, float aux_loss) {
  LoadStats s;
  s.demand = plan.expert_demand;
  s.kept = plan.expert_counts;
  s.aux_loss = aux_loss;
  int64_t total = 0;
  for (const int64_t d : s.demand) total += d;
  if (total > 0) {
    const double mean = static_cast<double>(total) / static_cast<double>(s.demand.size());
    s.max_over_mean = static_cast<double>(*std::max_element(s.demand.begin(), s.demand.end())) / mean;
  }
  const int64_t slots = plan.tokens * plan.k;
  if (slots > 0) s.dropped_fraction = static_cast<double>(plan.dropped_count()) / static_cast<double>(slots);
  return s;
}

}  // namespace frugal::router
