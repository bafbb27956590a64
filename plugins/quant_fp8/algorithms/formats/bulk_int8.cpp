// Bulk INT8 quantize/dequantize: the scalar definitions (int8.hpp) in
// branch-free loops, the amax made in the quantizing pass.
#include <cstddef>
#include <cstdint>
#include <span>

#include "formats/bulk.hpp"
#include "formats/bulk_support.hpp"
#include "formats/int8.hpp"

namespace frugal::quant {

float quantize_int8_symmetric(std::span<const float> in, std::span<std::int8_t> out, float scale) {
  detail::require_same_size(in.size(), out.size());
  const float* __restrict src = in.data();
  std::int8_t* __restrict dst = out.data();
  std::int32_t acc = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    acc = detail::amax_lane(acc, float_bits(src[i]), kFp32InfBits, kFp32AbsMask);
    dst[i] = quantize_int8_symmetric(src[i], scale);
  }
  return bits_float(static_cast<std::uint32_t>(acc));
}

float quantize_int8_asymmetric(std::span<const float> in, std::span<std::int8_t> out, float scale,
                               std::int8_t zero_point) {
  detail::require_same_size(in.size(), out.size());
  const float* __restrict src = in.data();
  std::int8_t* __restrict dst = out.data();
  std::int32_t acc = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    acc = detail::amax_lane(acc, float_bits(src[i]), kFp32InfBits, kFp32AbsMask);
    dst[i] = quantize_int8_asymmetric(src[i], scale, zero_point);
  }
  return bits_float(static_cast<std::uint32_t>(acc));
}

void dequantize_int8_symmetric(std::span<const std::int8_t> in, std::span<float> out, float scale) {
  detail::require_same_size(in.size(), out.size());
  const std::int8_t* __restrict src = in.data();
  float* __restrict dst = out.data();
  for (std::size_t i = 0; i < in.size(); ++i) dst[i] = dequantize_int8_symmetric(src[i], scale);
}

void dequantize_int8_asymmetric(std::span<const std::int8_t> in, std::span<float> out, float scale,
                                std::int8_t zero_point) {
  detail::require_same_size(in.size(), out.size());
  const std::int8_t* __restrict src = in.data();
  float* __restrict dst = out.data();
  for (std::size_t i = 0; i < in.size(); ++i) dst[i] = dequantize_int8_asymmetric(src[i], scale, zero_point);
}

}  // namespace frugal::quant
