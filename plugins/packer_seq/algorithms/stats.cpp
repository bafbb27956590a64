#include "algorithms/stats.hpp"

#include <algorithm>

#include "algorithms/bounds.hpp"
#include "algorithms/order.hpp"
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
  bool packable = true;  // every length in [1, max_len]: the histogram bound applies
  for (const int64_t len : lengths) {
    over_half += 2 * len > max_len ? 1 : 0;
    packable = packable && len >= 1 && len <= max_len;
  }
  s.lower_bound_tight = std::max(s.lower_bound, over_half);
  if (limits.max_per_pack > 0) {
    const auto n = static_cast<int64_t>(lengths.size());
    s.lower_bound_tight = std::max(s.lower_bound_tight, (n + limits.max_per_pack - 1) / limits.max_per_pack);
  }
  // The histogram costs O(max_len) memory: only when that is not much more
  // than the input itself.
  const auto histogram_limit = std::max<int64_t>(int64_t{1} << 22, 4 * static_cast<int64_t>(lengths.size()));
  if (packable && max_len <= histogram_limit) {
    s.lower_bound_tight = std::max(s.lower_bound_tight, pack_lower_bound(length_histogram(lengths, max_len), limits));
  }
  if (s.packs > 0) {
    s.efficiency = static_cast<double>(s.real_tokens) / (static_cast<double>(s.packs) * static_cast<double>(max_len));
  }
  return s;
}

}  // namespace frugal::packer
