// A packing described on the length histogram: groups of identical packs,
// each a pattern (the multiset of lengths one pack holds) and a number of
// copies. The refined constructions build plans so their cost depends on the
// number of distinct lengths, not on n; materialize() hands out the sequence
// indices at the end.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/types.hpp"

namespace frugal::packer {

class PackPlan {
 public:
  void add(std::span<const int64_t> pattern, int64_t copies);

  [[nodiscard]] int64_t packs() const noexcept { return packs_; }
  [[nodiscard]] std::size_t groups() const noexcept { return copies_.size(); }
  [[nodiscard]] std::span<const int64_t> pattern(std::size_t g) const;
  [[nodiscard]] int64_t copies(std::size_t g) const { return copies_[g]; }

 private:
  std::vector<int64_t> lengths_;     // every pattern, back to back
  std::vector<int64_t> offsets_{0};  // pattern g is lengths_[offsets_[g] .. offsets_[g+1])
  std::vector<int64_t> copies_;
  int64_t packs_ = 0;
};

// Packs in group order, copies consecutive; each pack's items in pattern
// order. The sequences of one length are handed out in ascending index
// order. The plan must use exactly the histogram of lengths (lengths in
// [1, max_len]). O(n + max_len + plan size).
[[nodiscard]] PackResult materialize(const PackPlan& plan, std::span<const int64_t> lengths, int64_t max_len);

}  // namespace frugal::packer
