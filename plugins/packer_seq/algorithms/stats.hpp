// Packing quality: efficiency = real tokens / (packs * max_len); the lower
// bound on packs is ceil(total tokens / max_len).
#pragma once

#include <cstdint>

#include "algorithms/types.hpp"

namespace frugal::packer {

struct PackStats {
  int64_t packs = 0;
  int64_t sequences = 0;
  int64_t real_tokens = 0;
  int64_t lower_bound = 0;      // ceil(real_tokens / max_len)
  double efficiency = 0.0;      // real_tokens / (packs * max_len)
  int64_t max_pack_tokens = 0;  // fullest pack
  int64_t max_pack_size = 0;    // most sequences in one pack
};

// max_len > 0 (throws PackError otherwise).
[[nodiscard]] PackStats compute_stats(const PackResult& result, int64_t max_len);

}  // namespace frugal::packer
