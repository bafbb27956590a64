// The element codecs of quant_op.hpp, one type each, so kernels are
// instantiated per codec and their loops stay branch-free:
//   Fp8Codec<F, S>:      q = fp32_to_fp8(x * scale),  x' = fp8_to_fp32(q) * scale_inv;
//   Int8SymmetricCodec:  q = quantize_int8_symmetric(x, scale_inv),
//                        x' = dequantize_int8_symmetric(q, scale_inv);
//   Int8AsymmetricCodec: the same with the block's zero point.
// The INT8 functions take the quantization step (our scale_inv) and divide
// by it (formats/int8.hpp): one correctly rounded division, not a multiply
// by a rounded reciprocal. Internal to ops/.
#pragma once

#include <cstdint>

#include "formats/fp8.hpp"
#include "formats/int8.hpp"
#include "ops/quant_op.hpp"

namespace frugal::quant::ops::detail {

// The scale values of one block.
struct BlockScale {
  float scale = 1.0f;      // quantized = x * scale (fp8)
  float scale_inv = 1.0f;  // x ~= quantized * scale_inv
  std::int8_t zero_point = 0;
};

template <Fp8Format F, Saturation S>
struct Fp8Codec {
  using Code = std::uint8_t;
  static constexpr Code encode(float x, BlockScale b) noexcept { return fp32_to_fp8<F, S>(x * b.scale); }
  static constexpr float decode(Code q, BlockScale b) noexcept { return fp8_to_fp32<F>(q) * b.scale_inv; }
};

struct Int8SymmetricCodec {
  using Code = std::int8_t;
  static constexpr Code encode(float x, BlockScale b) noexcept { return quantize_int8_symmetric(x, b.scale_inv); }
  static constexpr float decode(Code q, BlockScale b) noexcept { return dequantize_int8_symmetric(q, b.scale_inv); }
};

struct Int8AsymmetricCodec {
  using Code = std::int8_t;
  static constexpr Code encode(float x, BlockScale b) noexcept {
    return quantize_int8_asymmetric(x, b.scale_inv, b.zero_point);
  }
  static constexpr float decode(Code q, BlockScale b) noexcept {
    return dequantize_int8_asymmetric(q, b.scale_inv, b.zero_point);
  }
};

// Calls f(Codec{}) for an element format; `saturate` matters to fp8 encoding only.
template <class F>
decltype(auto) visit_codec(ElementFormat format, bool saturate, F&& f) {
  switch (format) {
    case ElementFormat::e4m3:
      return saturate ? f(Fp8Codec<Fp8Format::e4m3fn, Saturation::finite>{})
                      : f(Fp8Codec<Fp8Format::e4m3fn, Saturation::none>{});
    case ElementFormat::e5m2:
      return saturate ? f(Fp8Codec<Fp8Format::e5m2, Saturation::finite>{})
                      : f(Fp8Codec<Fp8Format::e5m2, Saturation::none>{});
    case ElementFormat::int8: return f(Int8SymmetricCodec{});
    case ElementFormat::int8_asym: break;
  }
  return f(Int8AsymmetricCodec{});
}

}  // namespace frugal::quant::ops::detail
