// Length-bucketed best-fit packing, the algorithm behind the vendor_bucket
// strategy; plain C++ with no frugal types, so it can be tested alone.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace vendor {

// Packs sequences so that every pack holds lengths from one bucket only
// (bucket b: lengths in [b*width + 1, (b+1)*width]): rows then mix only
// similar lengths, which keeps attention cost even across a batch.
// Inside a bucket, longest first, each sequence goes to the open pack it
// fills best (least room left). Returns the packs as sequence indices;
// every index appears exactly once, each pack sums to at most max_len and
// holds at most max_per_pack sequences (0: unlimited).
// Expects lengths in [1, max_len] (the core checks that before calling).
std::vector<std::vector<int64_t>> pack_in_buckets(std::span<const int64_t> lengths, int64_t max_len,
                                                  int64_t max_per_pack, int64_t width);

}  // namespace vendor
