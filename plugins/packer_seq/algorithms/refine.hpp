// "refined": a packing that beats the greedy algorithms where they leave a
// gap, never using more packs than first-fit decreasing.
//
// Works on the length histogram (pack_plan.hpp, plan_builders.hpp):
//  1. the tight lower bound (bounds.hpp);
//  2. first-fit decreasing, built pack by pack on the histogram (its pack
//     count is first_fit_decreasing's);
//  3. minimum slack: each pack opened by the longest sequence left and
//     completed by an exact pair search for its last two places, which is
//     where the greedy algorithms lose most when max_per_pack is small
//     (they fill a pack with the longest sequences first and leave the
//     sequences that fit the long ones' gaps stranded in packs of one or
//     two);
// and keeps the plan with fewer packs (ties: minimum slack). Deterministic;
// no random choices, so PackLimits::seed does not change the result.
// Time O(n + max_len + G * D) for G groups of identical packs and D distinct
// lengths, usually a few groups per distinct length; memory O(n + max_len).
#pragma once

#include <cstdint>
#include <span>

#include "algorithms/types.hpp"

namespace frugal::packer {

[[nodiscard]] PackResult refined(std::span<const int64_t> lengths, const PackLimits& limits);

}  // namespace frugal::packer
