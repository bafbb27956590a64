// The first two phases of a CPU quantize: statistics of every scale block
// of the input (amax, or min/max for asymmetric INT8), then each block's
// scales by the op's recipe (quant_op.hpp); for the whole grid, or for one
// row when blocks are one row high. Internal to ops/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ops/block_grid.hpp"
#include "ops/codecs.hpp"
#include "ops/quant_op.hpp"
#include "ops/span_kernels.hpp"

namespace frugal::quant::ops::detail {

// Per block, row-major over the grid. Every array has grid.size() entries
// (zero_point all 0 unless int8_asym, e8m0 empty unless mx), so kernels can
// index any of them.
struct BlockScales {
  std::vector<float> amax;  // max |x|, NaN propagating (canonical NaN)
  std::vector<float> scale;
  std::vector<float> scale_inv;
  std::vector<std::int8_t> zero_point;
  std::vector<std::uint8_t> e8m0;  // mx: the codes written as scale_inv

  // n blocks, zero points 0, E8M0 codes only for mx.
  void resize(std::size_t n, bool mx);
  [[nodiscard]] BlockScale at(std::size_t i) const noexcept { return {scale[i], scale_inv[i], zero_point[i]}; }
  [[nodiscard]] ColumnScales columns(std::size_t first) const noexcept {
    return {scale.data() + first, scale_inv.data() + first, zero_point.data() + first};
  }
};

// Every block of the grid: statistics over all rows (in parallel), then
// the scales.
[[nodiscard]] BlockScales compute_block_scales(const QuantizeOp& op, const Grid& grid);

// One row's blocks, when blocks are one row high (1 x N blocks, MX,
// per-row scaling): the row can be measured, scaled and converted while
// it is in cache. `out` is reused from row to row.
struct RowScales {
  BlockScales scales;  // grid.grid_cols blocks
  std::vector<std::int32_t> keys;
  std::vector<Range> ranges;
};
void compute_row_scales(const QuantizeOp& op, const Grid& grid, std::int64_t r, RowScales& out);

}  // namespace frugal::quant::ops::detail
