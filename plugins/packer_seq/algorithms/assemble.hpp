// Turns a per-sequence pack assignment into a PackResult.
#pragma once

#include <cstdint>
#include <span>

#include "algorithms/types.hpp"

namespace frugal::packer {

// Sequence order[k] (k = 0, 1, ...) was placed, in that order, into pack
// pack_of[k] < pack_count. An empty order means the identity. Items keep
// placement order within each pack. O(n + packs).
[[nodiscard]] PackResult assemble_result(std::span<const int64_t> lengths, std::span<const int64_t> order,
                                         std::span<const int64_t> pack_of, int64_t pack_count);

}  // namespace frugal::packer
