// The first two phases of a CPU quantize: statistics of every scale block
// of the input (amax, or min/max for asymmetric INT8), then each block's
// scales by the op's recipe (quant_op.hpp). Internal to ops/.
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

  [[nodiscard]] BlockScale at(std::size_t i) const noexcept { return {scale[i], scale_inv[i], zero_point[i]}; }
  [[nodiscard]] ColumnScales columns(std::size_t first) const noexcept {
    return {scale.data() + first, scale_inv.data() + first, zero_point.data() + first};
  }
};

[[nodiscard]] BlockScales compute_block_scales(const QuantizeOp& op, const Grid& grid);

}  // namespace frugal::quant::ops::detail
