// Expert capacity and the drop policies applied when an expert is asked for
// more rows than it holds.
#pragma once

#include <cstdint>

namespace frugal::router {

enum class DropPolicy {
  dropless,        // no capacity: every assignment is kept
  by_probability,  // keep each expert's C highest-weight assignments (ties: lower token, then lower slot)
  by_position,     // keep each expert's first C assignments in token order (then slot order)
};

struct CapacityOptions {
  DropPolicy policy = DropPolicy::dropless;
  double capacity_factor = 1.0;  // > 0; ignored when dropless
};

// C = ceil(tokens * k * capacity_factor / experts), at least 1 (a zero
// capacity would silently drop every token of a small batch). Computed in
// double: tokens * k is exact below 2^53, and a factor with a short binary
// expansion (1, 1.25, 1.5, 2) gives the exact ceiling.
[[nodiscard]] int64_t expert_capacity(int64_t tokens, int64_t k, int64_t experts, double capacity_factor);

}  // namespace frugal::router
