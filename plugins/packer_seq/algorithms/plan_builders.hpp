// Pack-at-a-time constructions on the length histogram. Both open each pack
// with the longest sequence left and then complete it; after a pack is
// built, as many identical copies are made as the remaining counts allow
// (the construction would pick the same pattern again while every length it
// uses is still there), so the work grows with the number of distinct
// lengths, not with n.
#pragma once

#include <cstdint>
#include <span>

#include "algorithms/pack_plan.hpp"
#include "algorithms/types.hpp"

namespace frugal::packer {

// Completes each pack with the longest sequence that still fits, repeatedly.
// Filling packs one at a time this way is exactly first-fit decreasing (a
// pack never accepts a sequence it refused earlier, its room only shrinks),
// so the pack count equals first_fit_decreasing's.
[[nodiscard]] PackPlan plan_first_fit(std::span<const int64_t> histogram, const PackLimits& limits);

// Minimum slack (after Gupta & Ho 1999, "A new heuristic algorithm for the
// one-dimensional bin-packing problem", in the "keep the longest item" form
// of Fleszar & Hindi 2002): completes each pack with the sequences that
// leave the least room. The last two places (max_per_pack 2 or 3, or
// whenever two sequences close the pack exactly) are chosen by an exact
// search over pairs of distinct lengths; earlier places take the longest
// sequence that fits. With max_per_pack 2 this is optimal: pairing the
// longest sequence with the longest partner that fits loses nothing (an
// exchange argument). For the last two places, rule says when a pair wins
// over the longest single sequence that fits.
enum class PairRule {
  least_room,     // when it leaves no more room (ties: the pair)
  any_pair_fits,  // always, if any pair fits: more sequences per pack, for
                  // when max_per_pack rather than max_len is the binding
                  // limit; the earlier places then also leave room for the
                  // shortest sequences left in the places after them
};
[[nodiscard]] PackPlan plan_min_slack(std::span<const int64_t> histogram, const PackLimits& limits, PairRule rule);

}  // namespace frugal::packer
