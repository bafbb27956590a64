// Open packs grouped by residual capacity, for the decreasing greedy packers
// (decreasing_fit.hpp). Each bucket hands out its packs in ascending pack
// number, which is both fits' tie rule, without a heap:
//
// With lengths placed in decreasing runs of equal length L, a pack taken from
// bucket r >= L keeps receiving copies of L until its residual drops below
// L, it reaches max_per_pack, or the run ends. So apart from the one pack
// that ends a run, every insertion goes to a bucket below the current L,
// and every removal comes from a bucket at or above it. As L only decreases,
// a bucket receives all those insertions before its first removal: it is
// filled unsorted, sorted once when L first reaches it ("activation"), and
// then drained from the front. The rare run-ending pack is inserted into its
// (active) bucket at its sorted position.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace frugal::packer {

template <class Id>
class ResidualBuckets {
 public:
  explicit ResidualBuckets(std::size_t max_residual) : bucket_(max_residual + 1) {}

  [[nodiscard]] bool empty(std::size_t r) const { return bucket_[r].head == bucket_[r].ids.size(); }
  [[nodiscard]] Id front(std::size_t r) const { return bucket_[r].ids[bucket_[r].head]; }

  void pop(std::size_t r) {
    Bucket& b = bucket_[r];
    if (++b.head == b.ids.size()) {  // drained: an active bucket only regrows by a few
      b.ids = std::vector<Id>();
      b.head = 0;
    }
  }

  // Before activation: any order.
  void append(std::size_t r, Id id) { bucket_[r].ids.push_back(id); }
  void append_run(std::size_t r, Id first, std::size_t count) {
    std::vector<Id>& ids = bucket_[r].ids;
    ids.reserve(ids.size() + count);
    for (std::size_t j = 0; j < count; ++j) ids.push_back(static_cast<Id>(first + j));
  }

  // After activation: keeps the pending packs sorted.
  void insert_sorted(std::size_t r, Id id) {
    Bucket& b = bucket_[r];
    const auto begin = b.ids.begin() + static_cast<std::ptrdiff_t>(b.head);
    b.ids.insert(std::upper_bound(begin, b.ids.end(), id), id);
  }

  void activate(std::size_t r) {
    std::vector<Id>& ids = bucket_[r].ids;
    // Usually already ascending (packs drained in order, new packs appended).
    if (!std::is_sorted(ids.begin(), ids.end())) std::sort(ids.begin(), ids.end());
  }

 private:
  struct Bucket {
    std::vector<Id> ids;
    std::size_t head = 0;  // ids[head..] are still in the bucket
  };
  std::vector<Bucket> bucket_;
};

}  // namespace frugal::packer
