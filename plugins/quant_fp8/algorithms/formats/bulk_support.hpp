// Internal to formats/: shared pieces of the bulk loops.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "formats/bits.hpp"

namespace frugal::quant::detail {

inline void require_same_size(std::size_t in, std::size_t out) {
  if (in != out) throw std::invalid_argument("quant_fp8 formats: input and output spans differ in size");
}

// Running amax over magnitude bits: NaN lanes count as 0, so a max of the
// bits is the max of the magnitudes (the patterns order like the values).
// Signed lanes: magnitudes fit in 31 bits, and baseline x86-64 (SSE2) has a
// vectorizable signed 32-bit max but no unsigned one.
constexpr std::int32_t amax_lane(std::int32_t acc, std::uint32_t bits, std::uint32_t inf_bits,
                                 std::uint32_t abs_mask) noexcept {
  const auto a = static_cast<std::int32_t>(bits & abs_mask);
  const std::int32_t m = a > static_cast<std::int32_t>(inf_bits) ? 0 : a;
  return acc > m ? acc : m;
}

}  // namespace frugal::quant::detail
