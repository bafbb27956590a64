// Histogram-based packing after Krell et al. 2021, "Efficient Sequence
// Packing without Cross-contamination" (arXiv 2107.02027).
//
// Both algorithms walk the length histogram from the longest length down and
// work on groups "count packs that all hold the same strategy (multiset of
// lengths)", kept in buckets by residual capacity, so the packing costs
// depend on the number of distinct lengths, not on n:
//  * SPFHP (shortest-pack-first): each sequence goes into the group with the
//    LARGEST residual that fits (worst fit, one sequence per pack of the
//    group; a group larger than the remaining count is split).
//  * LPFHP (longest-pack-first): the group with the SMALLEST residual that fits
//    (best fit), placing `repeat` copies per pack when several fit
//    (the paper's "distribute").
// When nothing fits, new packs are opened holding min(max_len / len,
// max_per_pack, remaining) copies each (for SPFHP this is exactly what
// sequential worst fit would do). Packs that reach max_per_pack sequences or
// residual 0 are closed. Ties between groups of one residual: last touched.
// Sequence indices are then handed out per length in ascending index order,
// packs in group creation order. Time O(n + max_len + G * max_len / 4096),
// G groups created (each places at least one sequence, so G <= n; in
// practice a few per distinct length); memory O(n + max_len): a group's
// strategy is its predecessor's plus one length, stored as a link, never
// copied (a copy per group made it O(max_len^2) for one pack filled by
// single short sequences).
#pragma once

#include <cstdint>
#include <span>

#include "algorithms/types.hpp"

namespace frugal::packer {

[[nodiscard]] PackResult spfhp(std::span<const int64_t> lengths, const PackLimits& limits);
[[nodiscard]] PackResult lpfhp(std::span<const int64_t> lengths, const PackLimits& limits);

}  // namespace frugal::packer
