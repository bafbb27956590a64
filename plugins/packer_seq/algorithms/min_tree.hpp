// A fixed-size min segment tree over small keys (residual capacities), used
// by first-fit decreasing to find the lowest pack number over all buckets
// with residual >= L. With at most max_len + 1 leaves it stays in cache,
// unlike a tree over millions of packs.
#pragma once

#include <bit>
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

namespace frugal::packer {

template <class V>
class MinTree {
 public:
  static constexpr V kEmpty = std::numeric_limits<V>::max();
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  explicit MinTree(std::size_t leaves)
      : size_(std::bit_ceil(leaves < 2 ? std::size_t{2} : leaves)), node_(2 * size_, kEmpty) {}

  void set(std::size_t leaf, V value) {
    std::size_t i = leaf + size_;
    node_[i] = value;
    for (i >>= 1; i >= 1; i >>= 1) {
      const V m = node_[2 * i] < node_[2 * i + 1] ? node_[2 * i] : node_[2 * i + 1];
      if (node_[i] == m) break;  // ancestors unchanged
      node_[i] = m;
    }
  }

  // The smallest value among leaves >= first and its leaf (npos, kEmpty when
  // all are empty). Values other than kEmpty must be distinct.
  [[nodiscard]] std::pair<std::size_t, V> min_from(std::size_t first) const {
    V best = kEmpty;
    std::size_t where = 0;
    // Canonical cover of [first, size_): the right-hand siblings on the way up.
    for (std::size_t lo = first + size_, hi = 2 * size_; lo < hi; lo >>= 1, hi >>= 1) {
      if ((lo & 1) != 0) {
        if (node_[lo] < best) {
          best = node_[lo];
          where = lo;
        }
        ++lo;
      }
    }
    if (best == kEmpty) return {npos, kEmpty};
    while (where < size_) where = node_[2 * where] == best ? 2 * where : 2 * where + 1;
    return {where - size_, best};
  }

 private:
  std::size_t size_;
  std::vector<V> node_;  // 1-based heap layout, leaves at [size_, 2 * size_)
};

}  // namespace frugal::packer
