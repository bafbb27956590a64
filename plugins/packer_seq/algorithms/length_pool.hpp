// The multiset of lengths still to be packed, as a histogram plus a
// two-level bitset over the lengths present, so "the largest remaining
// length <= r" costs O(max_len / 4096) word reads at worst. The histogram
// constructions of refine.cpp draw whole groups of identical packs from it.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace frugal::packer {

class LengthPool {
 public:
  // histogram[l] = sequences of length l, l in [0, max_len]; index 0 ignored.
  explicit LengthPool(std::span<const int64_t> histogram)
      : count_(histogram.begin(), histogram.end()),
        words_(histogram.size() / 64 + 1, 0),
        summary_(words_.size() / 64 + 1, 0) {
    count_[0] = 0;
    for (std::size_t l = 1; l < count_.size(); ++l) {
      if (count_[l] > 0) mark(l);
    }
  }

  [[nodiscard]] int64_t max_len() const { return static_cast<int64_t>(count_.size()) - 1; }
  [[nodiscard]] int64_t count(int64_t len) const { return count_[static_cast<std::size_t>(len)]; }
  [[nodiscard]] bool empty() const { return largest_at_most(max_len()) == 0; }

  void take(int64_t len, int64_t copies) {
    auto& c = count_[static_cast<std::size_t>(len)];
    c -= copies;
    if (c == 0) unmark(static_cast<std::size_t>(len));
  }

  // The total of the m shortest sequences left (fewer if fewer are left).
  // Counts only fall, so the shortest length left only rises: a watermark
  // skips the exhausted short lengths once. Meant for small m.
  [[nodiscard]] int64_t shortest_total(int64_t m) {
    while (shortest_ < count_.size() && count_[shortest_] == 0) ++shortest_;
    int64_t total = 0;
    for (std::size_t l = shortest_; l < count_.size() && m > 0; ++l) {
      const int64_t take = count_[l] < m ? count_[l] : m;
      total += take * static_cast<int64_t>(l);
      m -= take;
    }
    return total;
  }

  // The largest length <= r with a sequence left, or 0 when there is none.
  [[nodiscard]] int64_t largest_at_most(int64_t r) const {
    if (r <= 0) return 0;
    const auto x = static_cast<std::size_t>(r < max_len() ? r : max_len());
    std::size_t w = x >> 6;
    const uint64_t here = words_[w] & low_bits_through(x & 63);
    if (here != 0) return value(w, here);
    if (w == 0) return 0;
    --w;
    std::size_t s = w >> 6;
    uint64_t bits = summary_[s] & low_bits_through(w & 63);
    while (bits == 0) {
      if (s == 0) return 0;
      bits = summary_[--s];
    }
    const std::size_t word = (s << 6) + 63 - static_cast<std::size_t>(std::countl_zero(bits));
    return value(word, words_[word]);
  }

 private:
  static constexpr uint64_t low_bits_through(std::size_t b) {
    return b == 63 ? ~uint64_t{0} : (uint64_t{1} << (b + 1)) - 1;
  }
  static int64_t value(std::size_t word, uint64_t bits) {
    return static_cast<int64_t>((word << 6) + 63 - static_cast<std::size_t>(std::countl_zero(bits)));
  }
  void mark(std::size_t l) {
    words_[l >> 6] |= uint64_t{1} << (l & 63);
    summary_[l >> 12] |= uint64_t{1} << ((l >> 6) & 63);
  }
  void unmark(std::size_t l) {
    words_[l >> 6] &= ~(uint64_t{1} << (l & 63));
    if (words_[l >> 6] == 0) summary_[l >> 12] &= ~(uint64_t{1} << ((l >> 6) & 63));
  }

  std::vector<int64_t> count_;
  std::size_t shortest_ = 1;       // no sequence left is shorter
  std::vector<uint64_t> words_;    // bit l: count_[l] > 0
  std::vector<uint64_t> summary_;  // bit w: words_[w] != 0
};

}  // namespace frugal::packer
