// MXFP8 scales: 32 consecutive elements along a row share one E8M0 scale,
// the dequantization factor: x ~= q * 2^(e - 127), q = cast(x / 2^(e - 127)).
//
// The shared exponent is rounded up, so nothing overflows: e is the
// smallest exponent with amax / 2^(e-127) <= fp8_max. (The OCP spec's
// example choice, floor(log2(amax)) minus the element format's largest
// exponent, can put amax / scale above fp8_max and clip it; one power of two
// more of headroom avoids that at the cost of one bit of range.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "frugal/sdk/tensor_view.hpp"
#include "recipes/blocks.hpp"

namespace frugal::quant::recipes {

// The E8M0 code for a block with this amax:
// - amax 0 (an all-zero block): 2^0, code 127;
// - amax NaN or Inf: 0xFF, the E8M0 NaN, so the whole block dequantizes as
//   NaN and the overflow stays visible;
// - otherwise the smallest e with amax <= fp8_max * 2^(e-127), decided by
//   exact comparisons; clamped to [0, 254]. Code 0 is reached only when
//   amax <= fp8_max * 2^-127 (a block of tiny subnormals), where the
//   "next smaller scale would overflow" tightness cannot hold.
// Throws std::invalid_argument on a bad fp8_max (scale_from_amax.hpp).
[[nodiscard]] uint8_t mx_scale_code(float amax, float fp8_max);

struct MxScales {
  std::size_t grid_rows = 0;  // rows
  std::size_t grid_cols = 0;  // block_count(cols, 32)
  std::vector<float> amax;    // per block, row-major; the last block of a row may be partial
  std::vector<uint8_t> e8m0;  // per block, row-major
};

[[nodiscard]] MxScales mx_scales(const sdk::MatrixView<const float>& x, float fp8_max);

}  // namespace frugal::quant::recipes
