#include "ckpt/chunk_box.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace frugal::ckpt {
namespace {

// Row-major strides (in elements) of a box of `extents`. Only called for
// boxes whose element count fits in uint64_t, so no product overflows.
std::vector<uint64_t> strides_of(const std::vector<int64_t>& extents) {
  std::vector<uint64_t> strides(extents.size(), 1);
  for (size_t d = extents.size(); d-- > 1;) strides[d - 1] = strides[d] * static_cast<uint64_t>(extents[d]);
  return strides;
}

// Element index, in `box`'s own row-major layout, of the global position
// `at` (inside the box).
uint64_t index_in(const Box& box, const std::vector<uint64_t>& strides, const std::vector<int64_t>& at) {
  uint64_t index = 0;
  for (size_t d = 0; d < at.size(); ++d) index += static_cast<uint64_t>(at[d] - box.offsets[d]) * strides[d];
  return index;
}

}  // namespace

std::optional<uint64_t> element_count(std::span<const int64_t> extents) {
  uint64_t count = 1;
  for (const int64_t extent : extents)
    if (extent < 0 || __builtin_mul_overflow(count, static_cast<uint64_t>(extent), &count)) return std::nullopt;
  return count;
}

std::string box_outside(const Box& box, std::span<const int64_t> global) {
  if (box.offsets.size() != global.size() || box.extents.size() != global.size())
    return fmt::format("has {} offsets and {} extents for a tensor of {} dimensions", box.offsets.size(),
                       box.extents.size(), global.size());
  for (size_t d = 0; d < global.size(); ++d) {
    const int64_t offset = box.offsets[d];
    const int64_t extent = box.extents[d];
    if (global[d] < 0) return fmt::format("dimension {} of the tensor has a negative extent {}", d, global[d]);
    if (offset < 0 || extent < 0)
      return fmt::format("dimension {} has offset {} and extent {}; neither may be negative", d, offset, extent);
    // offset <= global and extent <= global - offset, each without overflow.
    if (offset > global[d] || extent > global[d] - offset)
      return fmt::format("dimension {} spans [{}, {} + {}), past the tensor's extent {}", d, offset, offset, extent,
                         global[d]);
  }
  return {};
}

std::optional<Box> intersect(const Box& a, const Box& b) {
  Box out;
  out.offsets.reserve(a.ndim());
  out.extents.reserve(a.ndim());
  for (size_t d = 0; d < a.ndim(); ++d) {
    const int64_t begin = std::max(a.offsets[d], b.offsets[d]);
    const int64_t end = std::min(a.offsets[d] + a.extents[d], b.offsets[d] + b.extents[d]);
    if (end <= begin) return std::nullopt;
    out.offsets.push_back(begin);
    out.extents.push_back(end - begin);
  }
  return out;
}

bool any_overlap(const std::vector<Box>& boxes) {
  if (boxes.size() < 2) return false;
  const size_t ndim = boxes.front().ndim();
  if (ndim == 0) return true;  // two non-empty scalars are the same element
  size_t sweep = 0;
  size_t most = 0;
  for (size_t d = 0; d < ndim; ++d) {
    std::vector<int64_t> starts;
    starts.reserve(boxes.size());
    for (const Box& b : boxes) starts.push_back(b.offsets[d]);
    std::sort(starts.begin(), starts.end());
    const auto distinct = static_cast<size_t>(std::unique(starts.begin(), starts.end()) - starts.begin());
    if (distinct > most) {
      most = distinct;
      sweep = d;
    }
  }
  std::vector<const Box*> order;
  order.reserve(boxes.size());
  for (const Box& b : boxes) order.push_back(&b);
  std::sort(order.begin(), order.end(),
            [&](const Box* a, const Box* b) { return a->offsets[sweep] < b->offsets[sweep]; });
  // The boxes whose span along `sweep` has not ended where the next begins.
  std::vector<const Box*> open;
  for (const Box* box : order) {
    const int64_t begin = box->offsets[sweep];
    std::erase_if(open, [&](const Box* o) { return o->offsets[sweep] + o->extents[sweep] <= begin; });
    for (const Box* o : open)
      if (intersect(*o, *box)) return true;
    open.push_back(box);
  }
  return false;
}

std::pair<uint64_t, uint64_t> element_span(const Box& source, const Box& overlap) {
  const auto strides = strides_of(source.extents);
  std::vector<int64_t> last = overlap.offsets;
  for (size_t d = 0; d < last.size(); ++d) last[d] += overlap.extents[d] - 1;
  return {index_in(source, strides, overlap.offsets), index_in(source, strides, last) + 1};
}

void for_each_run(const Box& source, const Box& target, const Box& overlap, const std::function<void(const Run&)>& fn) {
  const size_t ndim = overlap.ndim();
  if (ndim == 0) {  // a scalar: one element
    fn({0, 0, 1});
    return;
  }
  if (std::any_of(overlap.extents.begin(), overlap.extents.end(), [](int64_t e) { return e == 0; })) return;
  const auto source_strides = strides_of(source.extents);
  const auto target_strides = strides_of(target.extents);
  const auto row = static_cast<uint64_t>(overlap.extents[ndim - 1]);
  std::vector<int64_t> at = overlap.offsets;  // the first element of the current row
  std::optional<Run> pending;
  for (;;) {
    const Run next{index_in(source, source_strides, at), index_in(target, target_strides, at), row};
    if (pending && pending->source + pending->count == next.source && pending->target + pending->count == next.target)
      pending->count += row;
    else {
      if (pending) fn(*pending);
      pending = next;
    }
    // Advance to the next row: the odometer over every dimension but the last.
    size_t d = ndim - 1;
    while (d > 0) {
      --d;
      if (++at[d] < overlap.offsets[d] + overlap.extents[d]) break;
      at[d] = overlap.offsets[d];
      if (d == 0) {
        fn(*pending);
        return;
      }
    }
    if (ndim == 1) {
      fn(*pending);
      return;
    }
  }
}

}  // namespace frugal::ckpt
