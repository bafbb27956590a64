#include "algorithms/capacity.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "algorithms/types.hpp"

namespace frugal::router {

int64_t expert_capacity(int64_t tokens, int64_t k, int64_t experts, double capacity_factor) {
  if (!(capacity_factor > 0.0) || !std::isfinite(capacity_factor)) {
    throw RouterError("capacity factor " + std::to_string(capacity_factor) + " is not a positive finite number");
  }
  if (tokens < 0 || k < 0 || experts <= 0) throw RouterError("capacity: bad sizes");
  const double c = std::ceil(static_cast<double>(tokens * k) * capacity_factor / static_cast<double>(experts));
  // More than tokens * k rows can never be asked of one expert.
  return std::clamp<int64_t>(static_cast<int64_t>(std::min(c, 9.0e18)), 1, std::max<int64_t>(1, tokens * k));
}

}  // namespace frugal::router
