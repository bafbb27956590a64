// Boxes of a row-major tensor: the geometry of sharded checkpoints. A rank
// holds a box of each global tensor (offsets and extents per dimension; the
// whole tensor when it is replicated), a checkpoint stores the boxes the
// writing ranks held (chunks), and a restore on another number of ranks
// copies, from each stored chunk, the part that falls in the box the
// reading rank holds. Every box is stored and held row-major, so that part
// is a set of runs of elements contiguous on both sides.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace frugal::ckpt {

struct Box {
  std::vector<int64_t> offsets;  // per dimension, >= 0
  std::vector<int64_t> extents;  // per dimension, >= 0

  [[nodiscard]] size_t ndim() const { return extents.size(); }
};

// The number of elements in `extents` (1 for a 0-d box); nullopt when it
// overflows uint64_t or an extent is negative.
[[nodiscard]] std::optional<uint64_t> element_count(std::span<const int64_t> extents);

// Why `box` is not a box of a tensor of `global` extents ("" when it is):
// dimensions differ, an offset or extent is negative, or it reaches past
// the tensor (computed without overflow).
[[nodiscard]] std::string box_outside(const Box& box, std::span<const int64_t> global);

// The box both hold; nullopt when they share no element. Both must have
// the same number of dimensions.
[[nodiscard]] std::optional<Box> intersect(const Box& a, const Box& b);

// True when two of `boxes` (non-empty, all of one tensor) share an
// element. A sweep along the dimension with the most distinct offsets, so
// the usual splits (along one dimension, or a grid) cost O(n log n)
// rather than a comparison of every pair.
[[nodiscard]] bool any_overlap(const std::vector<Box>& boxes);

// The elements of `source`'s row-major layout from the first element of
// `overlap` (a non-empty box inside `source`) to its last, as [begin, end):
// what a reader of the overlap must fetch of the source.
[[nodiscard]] std::pair<uint64_t, uint64_t> element_span(const Box& source, const Box& overlap);

// One run of `count` elements, contiguous in the source box's row-major
// layout from element `source` and in the target box's from `target`.
struct Run {
  uint64_t source = 0;
  uint64_t target = 0;
  uint64_t count = 0;
};

// Calls fn for each run of the elements of `overlap` (a box inside both
// `source` and `target`), in row-major order of `overlap`, runs that
// continue each other on both sides merged into one. A split along the
// first dimension gives one run; a split along the last gives one per
// row.
void for_each_run(const Box& source, const Box& target, const Box& overlap, const std::function<void(const Run&)>& fn);

}  // namespace frugal::ckpt
