#include "recipes/scale_from_amax.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace frugal::quant::recipes {

std::optional<ScalePair> scale_for_target(float amax, double target) noexcept {
  if (!std::isfinite(amax) || !(amax > 0.0f)) return std::nullopt;
  const double a = amax;
  // Clamp in double first so the float conversion cannot overflow to Inf.
  const double q = std::clamp(target / a, double{kMinScale}, double{kMaxScale});
  float s = static_cast<float>(q);
  // Rounding to float (and the rounding of q itself) may land just above the
  // exact quotient. a * s is exact in double (24 + 24 significant bits, far
  // inside the exponent range), so this comparison is exact: step down one
  // ulp when the product overshoots. s is then the largest float <= the
  // exact target / amax.
  if (a * double{s} > target && s > kMinScale) s = std::nextafter(s, 0.0f);
  return ScalePair{s, 1.0f / s};
}

ScalePair current_scale(float amax, float fp8_max) noexcept {
  return scale_for_target(amax, fp8_max).value_or(ScalePair{});
}

void check_fp8_max(float fp8_max, const char* who) {
  if (!(fp8_max >= 4.0f) || std::isinf(fp8_max)) {
    throw std::invalid_argument(std::string(who) + ": fp8_max must be finite and >= 4, got " + std::to_string(fp8_max));
  }
}

}  // namespace frugal::quant::recipes
