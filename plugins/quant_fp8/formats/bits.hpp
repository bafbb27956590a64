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
inline constexpr std::uint32_t fp32_abs_mask = 0x7FFF'FFFFu;
inline constexpr std::uint32_t fp32_inf_bits = 0x7F80'0000u;

}  // namespace frugal::quant
