// Packing quality: efficiency = real tokens / (packs * max_len); lower
// bounds on packs, the simple ceil(total tokens / max_len) and a tighter one
// (bounds.hpp) that gaps are measured against.
#pragma once

#include <cstdint>
#include <span>

#include "algorithms/types.hpp"

namespace frugal::packer {

struct PackStats {
  int64_t packs = 0;
  int64_t sequences = 0;
  int64_t real_tokens = 0;
  int64_t lower_bound = 0;  // ceil(real_tokens / max_len)
  // A valid bound at least as tight: also ceil(sequences / max_per_pack) when
  // limited, the count of sequences longer than max_len / 2 (no two share a
  // pack), and Martello & Toth's L2 with its sequence-count analogue
  // (pack_lower_bound, bounds.hpp). Gaps are measured against this one.
  int64_t lower_bound_tight = 0;
  double efficiency = 0.0;      // real_tokens / (packs * max_len)
  int64_t max_pack_tokens = 0;  // fullest pack
  int64_t max_pack_size = 0;    // most sequences in one pack
};

// max_len > 0 (throws PackError otherwise).
// lengths are those the result's items index; max_per_pack 0 = unlimited.
[[nodiscard]] PackStats compute_stats(const PackResult& result, std::span<const int64_t> lengths,
                                      const PackLimits& limits);

}  // namespace frugal::packer
