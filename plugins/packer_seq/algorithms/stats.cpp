#include "algorithms/stats.hpp"

#include <algorithm>

#include "algorithms/validate.hpp"

namespace frugal::packer {

PackStats compute_stats(const PackResult& result, int64_t max_len) {
  validate_limits(PackLimits{max_len, 0});
  PackStats s;
  s.packs = static_cast<int64_t>(result.packs());
  s.sequences = static_cast<int64_t>(result.items.size());
  for (std::size_t p = 0; p < result.packs(); ++p) {
    s.real_tokens += result.tokens[p];
    s.max_pack_tokens = std::max(s.max_pack_tokens, result.tokens[p]);
    s.max_pack_size = std::max(s.max_pack_size, result.offsets[p + 1] - result.offsets[p]);
  }
  s.lower_bound = (s.real_tokens + max_len - 1) / max_len;
  if (s.packs > 0) {
    s.efficiency = static_cast<double>(s.real_tokens) / (static_cast<double>(s.packs) * static_cast<double>(max_len));
  }
  return s;
}

}  // namespace frugal::packer
