// int8_asymmetric_scale (cpu_ops.hpp): the one definition of asymmetric
// INT8 block scales.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/cpu_ops.hpp"
#include "recipes/scale_from_amax.hpp"

namespace frugal::quant::ops {

Int8AsymmetricScale int8_asymmetric_scale(float lo, float hi) noexcept {
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo)) return {};
  const double step = (double{hi} - double{lo}) / 255.0;
  float inv = static_cast<float>(step);
  // Round up, not to nearest: 255 steps must span the whole range, so that
  // neither end is clipped by more than half a step.
  if (double{inv} < step) inv = std::nextafter(inv, std::numeric_limits<float>::infinity());
  inv = std::clamp(inv, recipes::kMinScale, recipes::kMaxScale);
  // -lo / inv is in [0, 255]: the zero point never needs clamping, but the
  // clamp documents the range.
  const double zp = std::nearbyint(-128.0 - double{lo} / double{inv});
  return {1.0f / inv, inv, static_cast<std::int8_t>(std::clamp(zp, -128.0, 127.0))};
}

}  // namespace frugal::quant::ops
