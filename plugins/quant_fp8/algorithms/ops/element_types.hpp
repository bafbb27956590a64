// The floating-point element types of quantizer tensors (fp32, fp16, bf16)
// as tag types, so each kernel is instantiated once per type and its inner
// loop is straight-line code. Internal to ops/.
//
// Each type knows its storage, exact widening to fp32, round-to-nearest-even
// narrowing (formats/half.hpp), and a "magnitude key": the bits of |x| as
// an int32, which order like the magnitudes, with every NaN above +Inf. A
// block's amax is then an integer max, which vectorizes, and the NaN policy
// of recipes/amax.hpp (NaN propagates) falls out of the ordering.
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "formats/bits.hpp"
#include "formats/half.hpp"
#include "frugal/tensor.h"

namespace frugal::quant::ops::detail {

struct Fp32Type {
  using Storage = float;
  static constexpr std::int32_t inf_key = 0x7F80'0000;
  static constexpr float widen(float x) noexcept { return x; }
  static constexpr float narrow(float x) noexcept { return x; }
  static constexpr std::int32_t key(float x) noexcept {
    return static_cast<std::int32_t>(float_bits(x) & kFp32AbsMask);
  }
  static constexpr float key_value(std::int32_t k) noexcept { return bits_float(static_cast<std::uint32_t>(k)); }
};

// fp16 and bf16: 16-bit patterns whose magnitude key is the low 15 bits.
template <float (*Widen)(std::uint16_t), std::uint16_t (*Narrow)(float), std::int32_t InfKey>
struct HalfType {
  using Storage = std::uint16_t;
  static constexpr std::int32_t inf_key = InfKey;
  static constexpr float widen(std::uint16_t x) noexcept { return Widen(x); }
  static constexpr std::uint16_t narrow(float x) noexcept { return Narrow(x); }
  static constexpr std::int32_t key(std::uint16_t x) noexcept { return x & 0x7FFF; }
  static constexpr float key_value(std::int32_t k) noexcept { return Widen(static_cast<std::uint16_t>(k)); }
};

using Fp16Type = HalfType<fp16_to_fp32, fp32_to_fp16, 0x7C00>;
using Bf16Type = HalfType<bf16_to_fp32, fp32_to_bf16, 0x7F80>;

// The amax a magnitude key stands for: NaN (the canonical quiet NaN, so the
// bytes written do not depend on which NaN was seen) or |x| widened exactly.
template <class T>
constexpr float key_amax(std::int32_t key) noexcept {
  return key > T::inf_key ? std::numeric_limits<float>::quiet_NaN() : T::key_value(key);
}

// Calls f(T{}) for the tag of a FLOAT32, FLOAT16 or BFLOAT16 dtype.
template <class F>
decltype(auto) visit_float_type(std::int32_t dtype, F&& f) {
  switch (dtype) {
    case FRUGAL_DTYPE_FLOAT32: return f(Fp32Type{});
    case FRUGAL_DTYPE_FLOAT16: return f(Fp16Type{});
    case FRUGAL_DTYPE_BFLOAT16: return f(Bf16Type{});
    default:
      throw std::invalid_argument("quant_fp8 ops: dtype " + std::to_string(dtype) + " is not fp32, fp16 or bf16");
  }
}

}  // namespace frugal::quant::ops::detail
