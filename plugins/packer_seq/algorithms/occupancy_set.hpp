// A set of integers in [0, universe) as a two-level bitset: next set element
// >= x and the largest set element in O(universe / 4096) word reads at worst,
// usually O(1). Used to find non-empty residual buckets.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace frugal::packer {

class OccupancySet {
 public:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  explicit OccupancySet(std::size_t universe)
      : words_((universe + 63) / 64 + 1, 0), summary_((words_.size() + 63) / 64, 0) {}

  void insert(std::size_t x) {
    words_[x >> 6] |= bit(x);
    summary_[x >> 12] |= bit(x >> 6);
  }
  void erase(std::size_t x) {
    words_[x >> 6] &= ~bit(x);
    if (words_[x >> 6] == 0) summary_[x >> 12] &= ~bit(x >> 6);
  }
  [[nodiscard]] bool contains(std::size_t x) const { return (words_[x >> 6] & bit(x)) != 0; }

  // Smallest element >= x, or npos.
  [[nodiscard]] std::size_t next_at_least(std::size_t x) const {
    std::size_t w = x >> 6;
    if (w >= words_.size()) return npos;
    const uint64_t here = words_[w] & (~uint64_t{0} << (x & 63));
    if (here != 0) return (w << 6) + static_cast<std::size_t>(std::countr_zero(here));
    // Next non-empty word after w, via the summary.
    ++w;
    std::size_t s = w >> 6;
    if (s >= summary_.size()) return npos;
    uint64_t bits = (w & 63) == 0 ? summary_[s] : summary_[s] & (~uint64_t{0} << (w & 63));
    while (bits == 0) {
      if (++s >= summary_.size()) return npos;
      bits = summary_[s];
    }
    const std::size_t word = (s << 6) + static_cast<std::size_t>(std::countr_zero(bits));
    return (word << 6) + static_cast<std::size_t>(std::countr_zero(words_[word]));
  }

  // Largest element, or npos.
  [[nodiscard]] std::size_t largest() const {
    for (std::size_t s = summary_.size(); s-- > 0;) {
      if (summary_[s] == 0) continue;
      const std::size_t word = (s << 6) + 63 - static_cast<std::size_t>(std::countl_zero(summary_[s]));
      return (word << 6) + 63 - static_cast<std::size_t>(std::countl_zero(words_[word]));
    }
    return npos;
  }

 private:
  static constexpr uint64_t bit(std::size_t x) { return uint64_t{1} << (x & 63); }
  std::vector<uint64_t> words_;
  std::vector<uint64_t> summary_;
};

}  // namespace frugal::packer
