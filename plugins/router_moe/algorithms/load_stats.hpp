// Load statistics of a dispatch plan, for logging and for the bias update.
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/dispatch_plan.hpp"

namespace frugal::router {

struct LoadStats {
  std::vector<int64_t> demand;    // [experts] assignments asked for (before drops)
  std::vector<int64_t> kept;      // [experts] rows kept (after drops)
  double max_over_mean = 0.0;     // max(demand) / mean(demand); 1 = perfectly balanced, 0 if empty
  double dropped_fraction = 0.0;  // dropped assignments / (tokens * k); 0 for expert choice
  float aux_loss = 0.0f;          // the router's load-balancing loss, passed through
};

[[nodiscard]] LoadStats load_stats(const DispatchPlan& plan, float aux_loss = 0.0f);

}  // namespace frugal::router
