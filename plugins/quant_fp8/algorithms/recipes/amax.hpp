// amax (the largest |x|) over a span, per row, per column and per block.
//
// NaN policy: NaN propagates. If any element is NaN the amax is NaN, even
// when an Inf is also present; otherwise an Inf element gives +Inf. A
// non-finite amax is how the recipes learn that a tensor overflowed (the
// delayed recipe keeps its scale, the current recipes fall back to scale 1,
// MX writes a NaN scale), so it must not be hidden the way std::fmax would
// hide a NaN. The amax of no elements is 0. -0.0 counts as 0.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "frugal/sdk/tensor_view.hpp"
#include "recipes/blocks.hpp"

namespace frugal::quant::recipes {

[[nodiscard]] float amax(std::span<const float> x) noexcept;

// One amax per row (Axis::rows, size rows) or per column (Axis::cols, size
// cols). A matrix with no columns has rows amaxes of 0.
[[nodiscard]] std::vector<float> amax_per_channel(const sdk::MatrixView<const float>& x, Axis axis);

// One amax per block, row-major over the block grid of
// block_count(rows, b.rows) x block_count(cols, b.cols). Partial edge blocks
// (the last block row / column when the size is not a multiple of the block)
// take the amax of the elements they do cover; nothing is padded, which is
// the same as padding with zeros. Throws std::invalid_argument on a zero
// block dimension.
[[nodiscard]] std::vector<float> amax_per_block(const sdk::MatrixView<const float>& x, BlockShape b);

}  // namespace frugal::quant::recipes
