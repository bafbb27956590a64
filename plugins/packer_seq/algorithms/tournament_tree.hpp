// A max tournament (segment) tree over pack residual capacities, growing by
// doubling. Leaves not yet used hold the capacity of a fresh pack, so the
// leftmost leaf with residual >= len is either the first-fit open pack or the
// next new pack. O(log packs) per query and update.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace frugal::packer {

template <class T>
class TournamentTree {
 public:
  explicit TournamentTree(T fresh, std::size_t initial_leaves = 1024)
      : fresh_(fresh),
        leaves_(std::bit_ceil(initial_leaves < 2 ? std::size_t{2} : initial_leaves)),
        node_(2 * leaves_, fresh) {}

  // Leftmost leaf whose value is >= need; grows when every leaf is in use
  // (a fresh leaf always satisfies need <= fresh).
  std::size_t leftmost_at_least(T need) {
    if (node_[1] < need) grow();
    std::size_t i = 1;
    while (i < leaves_) {
      i <<= 1;
      if (node_[i] < need) ++i;
    }
    return i - leaves_;
  }

  void set(std::size_t leaf, T value) {
    std::size_t i = leaf + leaves_;
    node_[i] = value;
    for (i >>= 1; i >= 1; i >>= 1) {
      const T best = node_[2 * i] > node_[2 * i + 1] ? node_[2 * i] : node_[2 * i + 1];
      if (node_[i] == best) break;  // ancestors unchanged
      node_[i] = best;
    }
  }

  [[nodiscard]] T get(std::size_t leaf) const { return node_[leaf + leaves_]; }

 private:
  void grow() {
    const std::size_t old = leaves_;
    std::vector<T> next(4 * old, fresh_);
    leaves_ = 2 * old;
    for (std::size_t j = 0; j < old; ++j) next[leaves_ + j] = node_[old + j];
    for (std::size_t i = leaves_ - 1; i >= 1; --i) {
      next[i] = next[2 * i] > next[2 * i + 1] ? next[2 * i] : next[2 * i + 1];
    }
    node_.swap(next);
  }

  T fresh_;
  std::size_t leaves_;
  std::vector<T> node_;  // 1-based heap layout, leaves at [leaves_, 2 * leaves_)
};

}  // namespace frugal::packer
