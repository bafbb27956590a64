#include "algorithms/refine.hpp"

#include <string>
#include <vector>

#include "algorithms/best_fit.hpp"
#include "algorithms/bounds.hpp"
#include "algorithms/order.hpp"
#include "algorithms/pack_plan.hpp"
#include "algorithms/plan_builders.hpp"
#include "algorithms/validate.hpp"

namespace frugal::packer {

PackResult refined(std::span<const int64_t> lengths, const PackLimits& limits) {
  validate_packable(lengths, limits);
  if (limits.max_len > kMaxBucketedLen) {
    throw PackError("max_len " + std::to_string(limits.max_len) + " exceeds the refined limit " +
                    std::to_string(kMaxBucketedLen));
  }
  const std::vector<int64_t> histogram = length_histogram(lengths, limits.max_len);
  const int64_t bound = pack_lower_bound(histogram, limits);
  // Cheapest first; stop as soon as a plan reaches the bound.
  PackPlan plan = plan_min_slack(histogram, limits, PairRule::least_room);
  const auto consider = [&](auto&& build) {
    if (plan.packs() <= bound) return;
    PackPlan other = build();
    if (other.packs() < plan.packs()) plan = std::move(other);
  };
  if (limits.max_per_pack > 0) {
    consider([&] { return plan_min_slack(histogram, limits, PairRule::any_pair_fits); });
  }
  consider([&] { return plan_first_fit(histogram, limits); });
  return materialize(plan, lengths, limits.max_len);
}

}  // namespace frugal::packer
