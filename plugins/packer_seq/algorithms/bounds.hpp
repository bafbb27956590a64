// Lower bounds on the number of packs, computed from the length histogram.
#pragma once

#include <cstdint>
#include <span>

#include "algorithms/types.hpp"

namespace frugal::packer {

// The largest of:
//  * ceil(tokens / max_len) and, when limited, ceil(n / max_per_pack);
//  * Martello & Toth's L2 (1990): for every threshold K <= max_len / 2,
//    the sequences longer than max_len - K (J1) and those in
//    (max_len / 2, max_len - K] (J2) each need their own pack, and the
//    sequences in [K, max_len / 2] (J3) fit only into J2's packs or new
//    ones: L(K) = |J1| + |J2| + ceil((tokens(J3) - free room of J2) / max_len);
//  * its sequence-count analogue when limited: J2's packs take at most
//    max_per_pack - 1 of J3's sequences each, the rest need
//    ceil(rest / max_per_pack) new packs;
//  * when limited, per sequence longer than max_len / 2 (a pack of its
//    own): its pack takes at most min(max_per_pack - 1, how many of the
//    shortest sequences <= max_len / 2 fit its leftover room); the short
//    sequences left over need packs of at most max_per_pack.
// Each is a valid bound, so the maximum is one. histogram[l] = sequences of
// length l for l in [1, max_len] (histogram.size() == max_len + 1).
// O(max_len).
[[nodiscard]] int64_t pack_lower_bound(std::span<const int64_t> histogram, const PackLimits& limits);

}  // namespace frugal::packer
