#include "algorithms/order.hpp"

#include <algorithm>
#include <numeric>

namespace frugal::packer {

std::vector<int64_t> length_histogram(std::span<const int64_t> lengths, int64_t max_len) {
  std::vector<int64_t> counts(static_cast<std::size_t>(max_len) + 1, 0);
  for (const int64_t len : lengths) ++counts[static_cast<std::size_t>(len)];
  return counts;
}

std::vector<int64_t> decreasing_order(std::span<const int64_t> lengths, int64_t max_len) {
  const auto n = lengths.size();
  std::vector<int64_t> order(n);
  constexpr int64_t kCountingSortFloor = int64_t{1} << 20;
  if (max_len <= std::max<int64_t>(kCountingSortFloor, 4 * static_cast<int64_t>(n))) {
    // Bucket starts for descending length; a stable pass keeps index order.
    std::vector<int64_t> start = length_histogram(lengths, max_len);
    int64_t running = 0;
    for (auto l = static_cast<std::size_t>(max_len); l >= 1; --l) {
      const int64_t c = start[l];
      start[l] = running;
      running += c;
    }
    for (std::size_t i = 0; i < n; ++i) {
      order[static_cast<std::size_t>(start[static_cast<std::size_t>(lengths[i])]++)] = static_cast<int64_t>(i);
    }
    return order;
  }
  std::iota(order.begin(), order.end(), int64_t{0});
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    const int64_t la = lengths[static_cast<std::size_t>(a)];
    const int64_t lb = lengths[static_cast<std::size_t>(b)];
    return la != lb ? la > lb : a < b;
  });
  return order;
}

}  // namespace frugal::packer
