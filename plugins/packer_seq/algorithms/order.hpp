// The processing order of the "decreasing" algorithms: indices sorted by
// length descending, ties by index ascending (so results are deterministic).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace frugal::packer {

// Lengths must lie in [1, max_len]. Counting sort, O(n + max_len), when
// max_len is not much larger than n; a comparison sort, O(n log n), otherwise.
[[nodiscard]] std::vector<int64_t> decreasing_order(std::span<const int64_t> lengths, int64_t max_len);

// counts[l] = number of sequences of length l, l in [0, max_len].
[[nodiscard]] std::vector<int64_t> length_histogram(std::span<const int64_t> lengths, int64_t max_len);

}  // namespace frugal::packer
