// The largest finite magnitude of each quantized element format: the
// "fp8_max" every scale is computed against.
#pragma once

namespace frugal::quant::recipes {

inline constexpr float kE4M3Max = 448.0f;    // E4M3FN: S.1111.110 (S.1111.111 is NaN)
inline constexpr float kE5M2Max = 57344.0f;  // E5M2: S.11110.11 (exponent 11111 is Inf/NaN)
inline constexpr float kInt8Max = 127.0f;    // symmetric INT8: -127..127, -128 unused

}  // namespace frugal::quant::recipes
