#include "recipes/current_scaling.hpp"

#include <utility>

#include "recipes/amax.hpp"
#include "recipes/limits.hpp"

namespace frugal::quant::recipes {

ScaleSet scales_from_amaxes(std::vector<float> amaxes, float fp8_max) {
  check_fp8_max(fp8_max, "scales_from_amaxes");
  ScaleSet out;
  out.scale.resize(amaxes.size());
  out.scale_inv.resize(amaxes.size());
  for (std::size_t i = 0; i < amaxes.size(); ++i) {
    const ScalePair s = current_scale(amaxes[i], fp8_max);
    out.scale[i] = s.scale;
    out.scale_inv[i] = s.scale_inv;
  }
  out.amax = std::move(amaxes);
  return out;
}

TensorScale current_tensor_scale(std::span<const float> x, float fp8_max) {
  check_fp8_max(fp8_max, "current_tensor_scale");
  const float a = amax(x);
  const ScalePair s = current_scale(a, fp8_max);
  return TensorScale{a, s.scale, s.scale_inv};
}

ScaleSet per_channel_scales(const sdk::MatrixView<const float>& x, Axis axis, float fp8_max) {
  check_fp8_max(fp8_max, "per_channel_scales");
  return scales_from_amaxes(amax_per_channel(x, axis), fp8_max);
}

BlockScales block_scales(const sdk::MatrixView<const float>& x, BlockShape block, float fp8_max) {
  check_fp8_max(fp8_max, "block_scales");
  BlockScales out;
  out.scales = scales_from_amaxes(amax_per_block(x, block), fp8_max);  // validates the block first
  out.block = block;
  out.grid_rows = block_count(static_cast<std::size_t>(x.rows()), block.rows);
  out.grid_cols = block_count(static_cast<std::size_t>(x.cols()), block.cols);
  return out;
}

ScaleSet int8_channel_scales(const sdk::MatrixView<const float>& x, Axis axis) {
  return per_channel_scales(x, axis, kInt8Max);
}

}  // namespace frugal::quant::recipes
