#include "recipes/e8m0.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace frugal::quant::recipes {

uint8_t e8m0_from_exponent(int exponent) noexcept {
  return static_cast<uint8_t>(std::clamp(exponent, kE8M0MinExp, kE8M0MaxExp) + kE8M0Bias);
}

uint8_t e8m0_encode(float value, E8M0Round round) noexcept {
  if (std::isnan(value) || !(value > 0.0f)) return kE8M0Nan;
  if (std::isinf(value)) return e8m0_from_exponent(kE8M0MaxExp);
  // value = m * 2^e with m in [0.5, 1): value lies in [2^(e-1), 2^e), exact
  // for subnormals too. The work is done on the exact fraction, so there is
  // no log2 rounding to worry about.
  int e = 0;
  const double m = std::frexp(static_cast<double>(value), &e);
  int k = e - 1;  // floor(log2(value))
  if (m != 0.5) {
    if (round == E8M0Round::up || m >= 0.75) ++k;  // 2m >= 1.5: the upper power is nearer
  }
  return e8m0_from_exponent(k);
}

float e8m0_decode(uint8_t code) noexcept {
  if (code == kE8M0Nan) return std::numeric_limits<float>::quiet_NaN();
  // ldexp on float is exact here: 2^-127 is a representable subnormal and
  // 2^127 is below FLT_MAX.
  return std::ldexp(1.0f, e8m0_exponent(code));
}

}  // namespace frugal::quant::recipes
