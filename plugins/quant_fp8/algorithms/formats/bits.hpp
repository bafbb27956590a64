// Bit views of fp32 values. Every conversion in formats/ works on the IEEE
// bit pattern held in a uint32 lane: that keeps them exact, constexpr and
// branch-free, so the bulk loops vectorize.
#pragma once

#include <bit>
#include <cstdint>

namespace frugal::quant {

constexpr std::uint32_t float_bits(float f) noexcept { return std::bit_cast<std::uint32_t>(f); }
constexpr float bits_float(std::uint32_t u) noexcept { return std::bit_cast<float>(u); }

// |x| as bits; every non-NaN magnitude orders like its bits, NaN sits above
// the Inf pattern.
inline constexpr std::uint32_t kFp32AbsMask = 0x7FFF'FFFFu;
inline constexpr std::uint32_t kFp32InfBits = 0x7F80'0000u;

// c ? x : y with a mask instead of a conditional. The subnormal paths compute
// with fp32 additions; under a plain ?: the compiler may sink those into a
// branch and, since fp32 operations may trap, can then not if-convert it back
// for vectorization. The mask keeps both sides as straight data flow.
constexpr std::uint32_t select(bool c, std::uint32_t x, std::uint32_t y) noexcept {
  const std::uint32_t m = 0u - static_cast<std::uint32_t>(c);
  return (x & m) | (y & ~m);
}

}  // namespace frugal::quant
