// The one formula every fp32-scale recipe shares: scale = target / amax,
// rounded so that nothing overflows.
//
// Convention (Transformer Engine's, as in abi/include/frugal/tensor.h):
// `scale` multiplies the high-precision value before the cast,
// q = cast(x * scale), and `scale_inv` = 1 / scale is what dequantization and
// cuBLASLt use, x ~= q * scale_inv.
#pragma once

#include <optional>

namespace frugal::quant::recipes {

struct ScalePair {
  float scale = 1.0f;
  float scale_inv = 1.0f;
};

// Scales are clamped to [2^-126, 2^126] so that both scale and scale_inv are
// normal fp32 numbers: a subnormal scale_inv would be flushed to zero by
// GPU kernels built with flush-to-zero and dequantize everything to 0.
inline constexpr float kMinScale = 0x1p-126f;
inline constexpr float kMaxScale = 0x1p126f;

// The largest fp32 scale s with amax * s <= target (exactly, not after
// rounding), then clamped to [kMinScale, kMaxScale]; scale_inv is the fp32
// reciprocal (round to nearest), a normal number.
//
// "No overflow": amax * scale <= target holds whenever amax <= target *
// 2^126, i.e. for every finite amax when target >= 4. "Tight": when the
// unclamped scale is in range, amax * nextafter(scale, +inf) > target, so
// amax * scale is within one ulp of target.
//
// Returns nullopt when amax is 0, negative, NaN or Inf (no scale can be
// computed from it; each recipe decides what to do). Requires target > 0
// and finite.
[[nodiscard]] std::optional<ScalePair> scale_for_target(float amax, double target) noexcept;

// Current scaling of one tensor or block: scale_for_target(amax, fp8_max),
// and scale 1 (scale_inv 1) when there is none. For amax 0 (an all-zero
// tensor) any scale is exact and 1 keeps scale_inv meaningful; for a
// non-finite amax the tensor holds Inf or NaN, which no scale makes finite,
// so 1 is as good as any and the caller should treat the step as an
// overflow (a loss scaler skips it).
[[nodiscard]] ScalePair current_scale(float amax, float fp8_max) noexcept;

// Throws std::invalid_argument unless 4 <= fp8_max < Inf, the range where
// the no-overflow guarantee holds for every finite amax (all the element
// formats: 127, 448, 57344).
void check_fp8_max(float fp8_max, const char* who);

}  // namespace frugal::quant::recipes
