// Best-fit decreasing.
#pragma once

#include <cstdint>
#include <span>

#include "algorithms/types.hpp"

namespace frugal::packer {

// Over decreasing_order(), each sequence goes into the open pack with the
// smallest residual that still fits (ties: lowest pack number), else a new
// pack. Placed a run of equal lengths at a time through residual buckets
// (decreasing_fit.hpp): O(n + max_len) time plus one sort per bucket,
// O(n + max_len) memory. max_len is limited to 2^22 (bucket array).
[[nodiscard]] PackResult best_fit_decreasing(std::span<const int64_t> lengths, const PackLimits& limits);

// The largest max_len the bucketed algorithms (BFD, SPFHP, LPFHP) accept.
inline constexpr int64_t kMaxBucketedLen = int64_t{1} << 22;

}  // namespace frugal::packer
