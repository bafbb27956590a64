// The processing order of the "decreasing" algorithms: indices sorted by
// length descending, ties by index ascending (so results are deterministic).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace frugal::packer {

// Lengths must lie in [1, max_len]. Counting sort, O(n + max_len), when
// max_len is not much larger than n; a comparison sort, O(n log n), otherwise.
[[nodiscard]] std::vector<int64_t> decreasing_order(std::span<const int64_t> lengths, int64_t max_len);

// counts[l] = number of sequences of length l, l in [0, max_len].
[[nodiscard]] std::vector<int64_t> length_histogram(std::span<const int64_t> lengths, int64_t max_len);

// decreasing_order() by counting sort into out[0, n) as a narrower index type
// (half the memory traffic of int64 at 16M sequences), given
// histogram = length_histogram(lengths, max_len).
template <class Id>
void decreasing_order_into(std::span<const int64_t> lengths, std::span<const int64_t> histogram, Id* out) {
  std::vector<std::size_t> start(histogram.size(), 0);
  std::size_t running = 0;
  for (std::size_t l = histogram.size(); l-- > 1;) {
    start[l] = running;
    running += static_cast<std::size_t>(histogram[l]);
  }
  for (std::size_t i = 0; i < lengths.size(); ++i)
    out[start[static_cast<std::size_t>(lengths[i])]++] = static_cast<Id>(i);
}

}  // namespace frugal::packer
