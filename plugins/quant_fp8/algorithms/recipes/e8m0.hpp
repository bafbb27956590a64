// E8M0, the MX shared-scale format (OCP Microscaling spec v1.0): an 8-bit
// biased exponent, bias 127, value 2^(code - 127), codes 0..254 span
// 2^-127 .. 2^127. 0xFF is NaN. There is no sign and no zero.
#pragma once

#include <cstdint>

namespace frugal::quant::recipes {

inline constexpr uint8_t kE8M0Nan = 0xFF;
inline constexpr uint8_t kE8M0One = 127;  // 2^0
inline constexpr int kE8M0Bias = 127;
inline constexpr int kE8M0MinExp = -127;  // code 0
inline constexpr int kE8M0MaxExp = 127;   // code 254

enum class E8M0Round {
  // The smallest power of two >= the value. A scale used as a divisor
  // (x / 2^e) rounded up can only make quantized values smaller, which is
  // what the MX "nothing overflows" choice needs.
  up,
  // The power of two nearest in value: between 2^k and 2^(k+1) the midpoint
  // 1.5 * 2^k and above goes up (ties away from zero; with no mantissa bits
  // there is no "even" to tie to).
  nearest,
};

// Encodes a positive fp32 value. Total over all inputs:
// - NaN, zero (either sign) and negative values are not representable: 0xFF;
// - +Inf and values whose rounded result is above 2^127 saturate to 2^127
//   (code 254), as the hardware's satfinite conversion does;
// - positive values below 2^-127 (fp32 subnormals included) give 2^-127
//   (code 0), the smallest E8M0 value, with either rounding.
[[nodiscard]] uint8_t e8m0_encode(float value, E8M0Round round) noexcept;

// Decodes exactly: every code 0..254 is a power of two representable in fp32
// (2^-127 as a subnormal). 0xFF decodes to a quiet NaN.
[[nodiscard]] float e8m0_decode(uint8_t code) noexcept;

// The unbiased exponent of a code (code - 127); meaningless for 0xFF.
[[nodiscard]] constexpr int e8m0_exponent(uint8_t code) noexcept { return int{code} - kE8M0Bias; }

// The code for 2^exponent, exponent clamped to [-127, 127].
[[nodiscard]] uint8_t e8m0_from_exponent(int exponent) noexcept;

}  // namespace frugal::quant::recipes
