#include "algorithms/stats.hpp"

#include <algorithm>

#include "algorithms/validate.hpp"

namespace frugal::packer {

PackStats compute_stats(const PackResult& result, std::span<const int64_t> lengths, const PackLimits& limits) {
  validate_limits(limits);
  const int64_t max_len = limits.max_len;
  PackStats s;
  s.packs = static_cast<int64_t>(result.packs());
  s.sequences = static_cast<int64_t>(result.items.size());
  for (std::size_t p = 0; p < result.packs(); ++p) {
    s.real_tokens += result.tokens[p];
    s.max_pack_tokens = std::max(s.max_pack_tokens, result.tokens[p]);
    s.max_pack_size = std::max(s.max_pack_size, result.offsets[p + 1] - result.offsets[p]);
  }
  s.lower_bound = (s.real_tokens + max_len - 1) / max_len;
  int64_t over_half = 0;
  for (const int64_t len : lengths) over_half += 2 * len > max_len ? 1 : 0;
  s.lower_bound_tight = std::max(s.lower_bound, over_half);
  if (limits.max_per_pack > 0) {
    const auto n = static_cast<int64_t>(lengths.size());
    s.lower_bound_tight = std::max(s.lower_bound_tight, (n + limits.max_per_pack - 1) / limits.max_per_pack);
  }
  if (s.packs > 0) {
    s.efficiency = static_cast<double>(s.real_tokens) / (static_cast<double>(s.packs) * static_cast<double>(max_len));
  }
  return s;
}

}  // namespace frugal::packer
