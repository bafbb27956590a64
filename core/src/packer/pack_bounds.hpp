// A lower bound on the packs any packing needs, for the plan's statistics:
// the gap a user sees is measured against it. Internal to libfrugal.
#pragma once

#include <cstdint>
#include <span>

namespace frugal::pack {

// The largest of these valid bounds, for units of the given lengths (each
// in [1, max_len]):
//  - ceil(tokens / max_len), and ceil(units / max_per_pack) when limited;
//  - Martello and Toth's L2 (1990): for a threshold k <= max_len / 2, units
//    longer than max_len - k, and units in (max_len / 2, max_len - k], each
//    need a pack of their own, and units in [k, max_len / 2] fit only in
//    the second group's leftover room or in new packs;
//  - with a limit, the same argument counting units: the second group's
//    packs take at most max_per_pack - 1 of the short units each;
//  - with a limit, per long unit (> max_len / 2, a pack of its own): its
//    pack takes at most min(max_per_pack - 1, how many of the shortest
//    short units fit its leftover room); the short units left over need
//    packs of at most max_per_pack.
// O(n + max_len) with a histogram when max_len is small next to n,
// O(n log n) otherwise.
int64_t pack_lower_bound(std::span<const int64_t> lengths, int64_t max_len, int64_t max_per_pack);

}  // namespace frugal::pack
