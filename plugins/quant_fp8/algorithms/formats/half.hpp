// fp16 (IEEE binary16) and bf16 raw bits <-> fp32.
//
// Widening is exact. Narrowing rounds to nearest, ties to even, and
// overflows to Inf as IEEE does. NaN stays NaN: sign and the leading payload
// bits are kept and the quiet bit is set, so a signalling NaN never turns
// into Inf (its payload might not survive the cut otherwise).
//
// Subnormal results use one fp32 addition against a power of two whose ulp is
// the target's subnormal ulp: the FPU does the round-to-nearest-even. That
// assumes the default rounding mode (never changed in this SDK); flush-to-zero
// and denormals-are-zero modes do not change any result.
#pragma once

#include <cstdint>

#include "formats/bits.hpp"

namespace frugal::quant {

constexpr float fp16_to_fp32(std::uint16_t h) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t mag = static_cast<std::uint32_t>(h & 0x7FFFu) << 13;  // fp32 field positions
  const std::uint32_t exp = mag & 0x0F80'0000u;
  const std::uint32_t normal = mag + (112u << 23);  // rebias 15 -> 127
  // Inf/NaN: exponent all ones, payload kept, NaN quieted.
  const std::uint32_t quiet = (mag & 0x007F'FFFFu) != 0 ? 0x0040'0000u : 0u;
  const std::uint32_t special = mag | kFp32InfBits | quiet;
  // Subnormal m * 2^-24: build 2^-14 * (1 + m/1024) and take 2^-14 away (exact).
  const std::uint32_t sub = float_bits(bits_float(mag + (113u << 23)) - bits_float(113u << 23));
  std::uint32_t r = select(exp == 0x0F80'0000u, special, normal);
  r = select(exp == 0, sub, r);
  return bits_float(r | sign);
}

constexpr std::uint16_t fp32_to_fp16(float f) noexcept {
  const std::uint32_t u = float_bits(f);
  const std::uint32_t sign = (u >> 16) & 0x8000u;
  const std::uint32_t a = u & kFp32AbsMask;
  // Normal result: drop 13 mantissa bits, nearest even; a carry moves into the
  // exponent by itself (and past the largest finite value into Inf).
  const std::uint32_t normal = ((a + 0x0FFFu + ((a >> 13) & 1u)) >> 13) - (112u << 10);
  // Below 2^-14: 0.5f has ulp 2^-24, the fp16 subnormal ulp.
  const std::uint32_t sub = float_bits(bits_float(a) + 0.5f) - float_bits(0.5f);
  std::uint32_t r = select(a < 0x3880'0000u, sub, normal);
  r = r > 0x7C00u ? 0x7C00u : r;  // overflow (and Inf in) -> Inf
  r = select(a > kFp32InfBits, 0x7E00u | ((a >> 13) & 0x03FFu), r);
  return static_cast<std::uint16_t>(r | sign);
}

// bf16 is the top half of fp32: widening is a shift.
constexpr float bf16_to_fp32(std::uint16_t b) noexcept { return bits_float(static_cast<std::uint32_t>(b) << 16); }

constexpr std::uint16_t fp32_to_bf16(float f) noexcept {
  const std::uint32_t u = float_bits(f);
  // Sign rides along in the top bit; finite values never carry into it.
  const std::uint32_t rounded = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
  const std::uint32_t nan = (u >> 16) | 0x0040u;
  return static_cast<std::uint16_t>((u & kFp32AbsMask) > kFp32InfBits ? nan : rounded);
}

}  // namespace frugal::quant
