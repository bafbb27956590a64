// Current scaling: scales computed from the tensor being quantized, per
// tensor, per channel, or per block (DeepSeek-V3's 1x128 / 128x128), with
// fp32 scales. Every scale follows scale_for_target() (scale_from_amax.hpp):
// for each element, |x| * scale <= fp8_max, and amax * scale is within one
// ulp of fp8_max unless the scale was clamped. An all-zero tensor, channel
// or block gets scale 1; one holding NaN or Inf gets scale 1 too (its amax,
// reported alongside, is non-finite so the caller can see why).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "frugal/sdk/tensor_view.hpp"
#include "recipes/blocks.hpp"
#include "recipes/scale_from_amax.hpp"

namespace frugal::quant::recipes {

struct TensorScale {
  float amax = 0.0f;
  float scale = 1.0f;
  float scale_inv = 1.0f;
};

// One scale per channel (Axis::rows: size rows; Axis::cols: size cols), or
// one per block, row-major over the block grid.
struct ScaleSet {
  std::vector<float> amax;
  std::vector<float> scale;
  std::vector<float> scale_inv;
};

struct BlockScales {
  BlockShape block;
  std::size_t grid_rows = 0;  // block_count(rows, block.rows)
  std::size_t grid_cols = 0;  // block_count(cols, block.cols)
  ScaleSet scales;            // grid_rows * grid_cols entries, row-major
};

// All throw std::invalid_argument on a bad fp8_max (check_fp8_max).
[[nodiscard]] TensorScale current_tensor_scale(std::span<const float> x, float fp8_max);
[[nodiscard]] ScaleSet per_channel_scales(const sdk::MatrixView<const float>& x, Axis axis, float fp8_max);
// Partial edge blocks take the scale of the elements they cover (amax.hpp).
// Throws on a zero block dimension.
[[nodiscard]] BlockScales block_scales(const sdk::MatrixView<const float>& x, BlockShape block, float fp8_max);

// INT8 per-channel scales for serving: 127 / amax per channel, symmetric
// (q = round(x * scale) lies in [-127, 127]).
[[nodiscard]] ScaleSet int8_channel_scales(const sdk::MatrixView<const float>& x, Axis axis);

// The scales of a list of amaxes (the step shared by the functions above).
[[nodiscard]] ScaleSet scales_from_amaxes(std::vector<float> amaxes, float fp8_max);

}  // namespace frugal::quant::recipes
