// "refined": a packing that beats the greedy algorithms where they leave a
// gap, never using more packs than first-fit decreasing.
//
// Works on the length histogram (pack_plan.hpp, plan_builders.hpp), cheapest
// plan first, stopping as soon as one reaches the tight lower bound
// (bounds.hpp), which no packing can beat:
//  1. minimum slack, least room: each pack opened by the longest sequence
//     left and completed by an exact pair search for its last two places;
//  2. when max_per_pack is set, minimum slack, count first: any pair beats a
//     single sequence, and earlier places leave room for the shortest
//     sequences left. When max_per_pack rather than max_len binds, the greedy
//     algorithms fill packs with the longest sequences first and strand
//     short ones in packs of one or two; this is where they lose most;
//  3. first-fit decreasing, built pack by pack on the histogram (its pack
//     count is first_fit_decreasing's, hence the guarantee).
// The plan with the fewest packs is kept (ties: the earlier one). BFD, SPFHP
// or LPFHP can still win by a pack or two on some inputs; "best" (best_of.hpp)
// covers those. Deterministic; there are no random choices, so
// PackLimits::seed does not change the result.
// Time O(n + max_len + G * D) for G groups of identical packs and D distinct
// lengths, usually a few groups per distinct length; memory O(n + max_len)
// besides the result.
#pragma once

#include <cstdint>
#include <span>

#include "algorithms/types.hpp"

namespace frugal::packer {

[[nodiscard]] PackResult refined(std::span<const int64_t> lengths, const PackLimits& limits);

}  // namespace frugal::packer
