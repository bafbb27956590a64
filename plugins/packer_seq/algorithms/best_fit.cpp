#include "algorithms/best_fit.hpp"

#include <limits>
#include <string>

#include "algorithms/decreasing_fit.hpp"
#include "algorithms/validate.hpp"

namespace frugal::packer {

PackResult best_fit_decreasing(std::span<const int64_t> lengths, const PackLimits& limits) {
  validate_packable(lengths, limits);
  if (limits.max_len > kMaxBucketedLen) {
    throw PackError("max_len " + std::to_string(limits.max_len) + " exceeds the best-fit limit " +
                    std::to_string(kMaxBucketedLen));
  }
  if (lengths.size() < std::numeric_limits<uint32_t>::max()) {
    return DecreasingFit<uint32_t, FitRule::best>(lengths, limits).run();
  }
  return DecreasingFit<uint64_t, FitRule::best>(lengths, limits).run();
}

}  // namespace frugal::packer
