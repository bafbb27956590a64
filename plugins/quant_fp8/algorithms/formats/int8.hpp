// INT8 quantization, scalar.
//
// Symmetric:  q = clamp(rne(x / scale), -127, 127),  x' = q * scale.
//   -128 is never produced, so the range is symmetric and -q never overflows.
// Asymmetric: q = clamp(rne(x / scale) + zp, -128, 127),  x' = (q - zp) * scale,
//   zp (the zero point) an int8, so real 0 maps exactly to zp.
//
// x / scale is one correctly rounded fp32 division (not a multiply by a
// rounded reciprocal); rne rounds that quotient to the nearest integer, ties
// to even. +-Inf (and quotients that overflow) clamp to the range ends; NaN
// quantizes to the code of 0 (0, or zp). scale must be finite and > 0; it is
// not checked here (the recipes produce it). Dequantization rounds once: the
// integer q or q - zp is exact in fp32, the product is rounded.
#pragma once

#include <cstdint>

#include "formats/bits.hpp"

namespace frugal::quant {

namespace detail {

// Clamp to [lo, hi] (integers), NaN -> 0, then round to nearest even: adding
// 1.5 * 2^23 puts the value in a binade whose ulp is 1, so the FPU rounds.
// The clamps are masks on the bits (select), not ?: on floats, so the bulk
// loops stay branch-free and vectorize.
constexpr std::int32_t clamp_round_half_even(float t, float lo, float hi) noexcept {
  t = bits_float(select(t > hi, float_bits(hi), float_bits(t)));
  t = bits_float(select(t < lo, float_bits(lo), float_bits(t)));
  t = bits_float(select(t != t, 0u, float_bits(t)));
  constexpr float magic = 12582912.0f;  // 1.5 * 2^23
  return static_cast<std::int32_t>((t + magic) - magic);
}

}  // namespace detail

constexpr std::int8_t quantize_int8_symmetric(float x, float scale) noexcept {
  return static_cast<std::int8_t>(detail::clamp_round_half_even(x / scale, -127.0f, 127.0f));
}

constexpr float dequantize_int8_symmetric(std::int8_t q, float scale) noexcept { return static_cast<float>(q) * scale; }

constexpr std::int8_t quantize_int8_asymmetric(float x, float scale, std::int8_t zero_point) noexcept {
  // Clamping the quotient to the shifted range first is the same as clamping
  // q afterwards, because the bounds are integers.
  const auto lo = static_cast<float>(-128 - zero_point);
  const auto hi = static_cast<float>(127 - zero_point);
  return static_cast<std::int8_t>(detail::clamp_round_half_even(x / scale, lo, hi) + zero_point);
}

constexpr float dequantize_int8_asymmetric(std::int8_t q, float scale, std::int8_t zero_point) noexcept {
  return static_cast<float>(q - zero_point) * scale;
}

}  // namespace frugal::quant
