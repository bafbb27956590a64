// OCP FP8 element formats and their scalar conversions.
//
//   E4M3FN: bias 7, no Inf, NaN = S.1111.111 (0x7F/0xFF), max 448 (0x7E).
//   E5M2:   bias 15, IEEE-like, Inf 0x7C/0xFC, NaN 0x7D-0x7F, max 57344 (0x7B).
//
// fp32 -> fp8 rounds to nearest, ties to even. A value whose rounding would
// pass the largest finite code (|x| > max + 1/2 ulp, or exactly that when the
// tie goes up: E5M2 61440 ties to 65536, E4M3 464 ties down to 448) is an
// overflow: Saturation::finite clamps it to +-max (Inf included), and
// Saturation::none gives NaN (E4M3FN) or +-Inf (E5M2). Every NaN input gives
// the canonical NaN 0x7F, sign dropped, as NVIDIA's converters do.
//
// fp8 -> fp32 is exact; NaN codes give a quiet NaN with the code's sign.
// fp16/bf16 -> fp8 widen exactly first, so there is a single rounding.
#pragma once

#include <cstdint>

#include "formats/bits.hpp"
#include "formats/half.hpp"

namespace frugal::quant {

enum class Fp8Format : std::uint8_t { e4m3fn, e5m2 };
enum class Saturation : std::uint8_t {
  finite,  // overflow clamps to +-max
  none,    // overflow gives NaN (E4M3FN) or +-Inf (E5M2)
};

namespace detail {

template <Fp8Format F>
struct Fp8Traits;

template <>
struct Fp8Traits<Fp8Format::e4m3fn> {
  static constexpr std::uint32_t mantissa_bits = 3;
  static constexpr std::uint32_t rebias = (127u - 7u) << mantissa_bits;
  static constexpr std::uint32_t min_normal_bits = (127u - 6u) << 23;   // 2^-6
  static constexpr std::uint32_t subnormal_magic = (127u + 14u) << 23;  // 2^14: ulp 2^-9
  static constexpr std::uint32_t max_code = 0x7E;
  static constexpr std::uint32_t overflow_code = 0x7F;  // NaN
  static constexpr std::uint32_t nan_code = 0x7F;
};

template <>
struct Fp8Traits<Fp8Format::e5m2> {
  static constexpr std::uint32_t mantissa_bits = 2;
  static constexpr std::uint32_t rebias = (127u - 15u) << mantissa_bits;
  static constexpr std::uint32_t min_normal_bits = (127u - 14u) << 23;  // 2^-14
  static constexpr std::uint32_t subnormal_magic = (127u + 7u) << 23;   // 2^7: ulp 2^-16
  static constexpr std::uint32_t max_code = 0x7B;
  static constexpr std::uint32_t overflow_code = 0x7C;  // Inf
  static constexpr std::uint32_t nan_code = 0x7F;
};

}  // namespace detail

template <Fp8Format F, Saturation S>
constexpr std::uint8_t fp32_to_fp8(float f) noexcept {
  using T = detail::Fp8Traits<F>;
  constexpr std::uint32_t shift = 23u - T::mantissa_bits;
  const std::uint32_t u = float_bits(f);
  const std::uint32_t sign = (u >> 24) & 0x80u;
  const std::uint32_t a = u & kFp32AbsMask;
  // Normal result: cut the mantissa, nearest even; a carry bumps the exponent.
  // Wraps (unsigned) for inputs below the normal range, which take `sub`.
  const std::uint32_t normal = ((a + ((1u << (shift - 1)) - 1u) + ((a >> shift) & 1u)) >> shift) - T::rebias;
  // Subnormal result: the FPU rounds |x| onto the grid of the magic's ulp; the
  // count of ulps is the code (reaching the smallest normal code when it carries).
  const std::uint32_t sub = float_bits(bits_float(a) + bits_float(T::subnormal_magic)) - T::subnormal_magic;
  std::uint32_t code = select(a < T::min_normal_bits, sub, normal);
  constexpr std::uint32_t overflow = S == Saturation::finite ? T::max_code : T::overflow_code;
  code = code > T::max_code ? overflow : code;  // Inf input lands here too
  code |= sign;
  code = select(a > kFp32InfBits, T::nan_code, code);
  return static_cast<std::uint8_t>(code);
}

template <Fp8Format F>
constexpr float fp8_to_fp32(std::uint8_t c) noexcept {
  if constexpr (F == Fp8Format::e5m2) {
    // E5M2 is the top byte of an fp16.
    return fp16_to_fp32(static_cast<std::uint16_t>(c << 8));
  } else {
    const std::uint32_t sign = static_cast<std::uint32_t>(c & 0x80u) << 24;
    const std::uint32_t mag = static_cast<std::uint32_t>(c & 0x7Fu) << 20;  // fp32 field positions
    const std::uint32_t normal = mag + (120u << 23);                        // rebias 7 -> 127
    // Subnormal m * 2^-9: 2^-6 * (1 + m/8) - 2^-6, exact.
    const std::uint32_t sub = float_bits(bits_float(mag + (121u << 23)) - bits_float(121u << 23));
    std::uint32_t r = select((c & 0x78u) == 0, sub, normal);
    r = select((c & 0x7Fu) == 0x7Fu, 0x7FC0'0000u, r);
    return bits_float(r | sign);
  }
}

// fp16/bf16 raw bits -> fp8: exact widening, then the one rounding.
template <Fp8Format F, Saturation S>
constexpr std::uint8_t fp16_to_fp8(std::uint16_t h) noexcept {
  return fp32_to_fp8<F, S>(fp16_to_fp32(h));
}
template <Fp8Format F, Saturation S>
constexpr std::uint8_t bf16_to_fp8(std::uint16_t b) noexcept {
  return fp32_to_fp8<F, S>(bf16_to_fp32(b));
}

// fp8 -> fp16/bf16: every fp8 value is exact in both, so the narrowing never rounds.
template <Fp8Format F>
constexpr std::uint16_t fp8_to_fp16(std::uint8_t c) noexcept {
  return fp32_to_fp16(fp8_to_fp32<F>(c));
}
template <Fp8Format F>
constexpr std::uint16_t fp8_to_bf16(std::uint8_t c) noexcept {
  return fp32_to_bf16(fp8_to_fp32<F>(c));
}

// Run-time format and mode, for callers that hold them as values.
constexpr std::uint8_t fp32_to_fp8(float f, Fp8Format format, Saturation sat) noexcept {
  if (format == Fp8Format::e4m3fn) {
    return sat == Saturation::finite ? fp32_to_fp8<Fp8Format::e4m3fn, Saturation::finite>(f)
                                     : fp32_to_fp8<Fp8Format::e4m3fn, Saturation::none>(f);
  }
  return sat == Saturation::finite ? fp32_to_fp8<Fp8Format::e5m2, Saturation::finite>(f)
                                   : fp32_to_fp8<Fp8Format::e5m2, Saturation::none>(f);
}
constexpr std::uint8_t fp16_to_fp8(std::uint16_t h, Fp8Format format, Saturation sat) noexcept {
  return fp32_to_fp8(fp16_to_fp32(h), format, sat);
}
constexpr std::uint8_t bf16_to_fp8(std::uint16_t b, Fp8Format format, Saturation sat) noexcept {
  return fp32_to_fp8(bf16_to_fp32(b), format, sat);
}
constexpr float fp8_to_fp32(std::uint8_t c, Fp8Format format) noexcept {
  return format == Fp8Format::e4m3fn ? fp8_to_fp32<Fp8Format::e4m3fn>(c) : fp8_to_fp32<Fp8Format::e5m2>(c);
}

}  // namespace frugal::quant
