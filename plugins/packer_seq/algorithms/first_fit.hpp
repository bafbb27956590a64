// First fit: the naive reference and first-fit decreasing.
#pragma once

#include <cstdint>
#include <span>

#include "algorithms/types.hpp"

namespace frugal::packer {

// Input order; each sequence goes into the lowest-numbered pack with enough
// room (and fewer than max_per_pack sequences), else a new pack. Scans every
// pack: O(n * packs). The slow reference for tests.
[[nodiscard]] PackResult naive_first_fit(std::span<const int64_t> lengths, const PackLimits& limits);

// First fit over decreasing_order(): exactly naive_first_fit applied to the
// sorted input. Runs of equal length through residual buckets
// (decreasing_fit.hpp), O(n + max_len log max_len) plus one sort per bucket,
// while max_len <= max(2^16, 4 n) (and <= kMaxBucketedLen); beyond that a
// tournament tree over packs, O(n log n).
[[nodiscard]] PackResult first_fit_decreasing(std::span<const int64_t> lengths, const PackLimits& limits);

}  // namespace frugal::packer
