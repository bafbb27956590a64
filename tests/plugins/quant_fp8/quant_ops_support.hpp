// Shared pieces of the CPU-ops tests: host matrices of any element dtype
// with padded rows, random inputs, the recipe cases, and the round-trip
// error bounds of each format.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "formats/fp8.hpp"
#include "formats/half.hpp"
#include "frugal/tensor.h"
#include "ops/quant_op.hpp"

namespace quant_ops_test {

namespace ops = frugal::quant::ops;

inline std::size_t dtype_size(std::int32_t dtype) {
  switch (dtype) {
    case FRUGAL_DTYPE_FLOAT32: return 4;
    case FRUGAL_DTYPE_FLOAT16:
    case FRUGAL_DTYPE_BFLOAT16: return 2;
    default: return 1;
  }
}

inline const char* dtype_name(std::int32_t dtype) {
  switch (dtype) {
    case FRUGAL_DTYPE_FLOAT32: return "fp32";
    case FRUGAL_DTYPE_FLOAT16: return "fp16";
    case FRUGAL_DTYPE_BFLOAT16: return "bf16";
    case FRUGAL_DTYPE_FLOAT8_E4M3FN: return "e4m3";
    case FRUGAL_DTYPE_FLOAT8_E5M2: return "e5m2";
    default: return "int8";
  }
}

// The padding bytes of every row: checked unchanged after an op, so an op
// never writes past a row's last column.
inline constexpr std::uint8_t kPadByte = 0xA5;

// A rows x cols matrix whose rows are `pad` elements longer than needed.
struct HostMatrix {
  std::int64_t rows = 0, cols = 0, stride = 0;
  std::int32_t dtype = FRUGAL_DTYPE_FLOAT32;
  std::vector<std::uint8_t> bytes;

  HostMatrix() = default;
  HostMatrix(std::int64_t r, std::int64_t c, std::int32_t dt, std::int64_t pad = 0)
      : rows(r),
        cols(c),
        stride(c + pad),
        dtype(dt),
        bytes(static_cast<std::size_t>(r * (c + pad)) * dtype_size(dt), kPadByte) {}

  ops::Matrix view() { return {{bytes.data(), rows, cols, stride}, dtype}; }
  std::uint8_t* at(std::int64_t r, std::int64_t c) {
    return bytes.data() + static_cast<std::size_t>(r * stride + c) * dtype_size(dtype);
  }
  const std::uint8_t* at(std::int64_t r, std::int64_t c) const {
    return bytes.data() + static_cast<std::size_t>(r * stride + c) * dtype_size(dtype);
  }
  std::uint8_t code(std::int64_t r, std::int64_t c) const { return *at(r, c); }
  std::uint16_t bits16(std::int64_t r, std::int64_t c) const {
    std::uint16_t v;
    std::memcpy(&v, at(r, c), 2);
    return v;
  }

  // The element as fp32: widened exactly (fp16, bf16, fp8) or as the integer (int8).
  float get(std::int64_t r, std::int64_t c) const {
    switch (dtype) {
      case FRUGAL_DTYPE_FLOAT32: {
        float v;
        std::memcpy(&v, at(r, c), 4);
        return v;
      }
      case FRUGAL_DTYPE_FLOAT16: return frugal::quant::fp16_to_fp32(bits16(r, c));
      case FRUGAL_DTYPE_BFLOAT16: return frugal::quant::bf16_to_fp32(bits16(r, c));
      case FRUGAL_DTYPE_FLOAT8_E4M3FN: return frugal::quant::fp8_to_fp32(code(r, c), frugal::quant::Fp8Format::e4m3fn);
      case FRUGAL_DTYPE_FLOAT8_E5M2: return frugal::quant::fp8_to_fp32(code(r, c), frugal::quant::Fp8Format::e5m2);
      default: return static_cast<float>(static_cast<std::int8_t>(code(r, c)));
    }
  }

  // Stores v rounded to the dtype (fp32, fp16, bf16 only).
  void set(std::int64_t r, std::int64_t c, float v) {
    if (dtype == FRUGAL_DTYPE_FLOAT32) {
      std::memcpy(at(r, c), &v, 4);
      return;
    }
    const std::uint16_t h =
        dtype == FRUGAL_DTYPE_FLOAT16 ? frugal::quant::fp32_to_fp16(v) : frugal::quant::fp32_to_bf16(v);
    std::memcpy(at(r, c), &h, 2);
  }

  // The elements, widened to fp32, compact row-major (the recipes' input).
  std::vector<float> compact() const {
    std::vector<float> out(static_cast<std::size_t>(rows * cols));
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c) out[static_cast<std::size_t>(r * cols + c)] = get(r, c);
    return out;
  }

  // True when every padding byte still holds kPadByte.
  bool padding_intact() const {
    const std::size_t es = dtype_size(dtype);
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::uint8_t* p = bytes.data() + static_cast<std::size_t>(r * stride + cols) * es;
      for (std::size_t i = 0; i < static_cast<std::size_t>(stride - cols) * es; ++i)
        if (p[i] != kPadByte) return false;
    }
    return true;
  }

  // The bytes of the elements (padding excluded), for exact comparisons.
  std::vector<std::uint8_t> payload() const {
    std::vector<std::uint8_t> out;
    const std::size_t es = dtype_size(dtype);
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::uint8_t* p = at(r, 0);
      out.insert(out.end(), p, p + static_cast<std::size_t>(cols) * es);
    }
    return out;
  }
};

// Random inputs: rows cycle through regimes so neighbouring blocks see very
// different amaxes. Magnitudes stay inside the dtype's finite range.
enum class Regime { normal, spread, zeros, tiny };

inline HostMatrix random_input(std::int64_t rows, std::int64_t cols, std::int32_t dtype, std::int64_t pad,
                               std::uint32_t seed) {
  HostMatrix m(rows, cols, dtype, pad);
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  // Exponent ranges the dtype holds (fp16 is the narrow one).
  const bool fp16 = dtype == FRUGAL_DTYPE_FLOAT16;
  std::uniform_int_distribution<int> spread_exp(fp16 ? -20 : -60, fp16 ? 12 : 60);
  std::uniform_int_distribution<int> tiny_exp(fp16 ? -24 : -140, fp16 ? -15 : -120);
  std::uniform_int_distribution<int> row_exp(-8, 8);
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto regime = static_cast<Regime>((r + seed) % 4);
    const int e = row_exp(rng);
    for (std::int64_t c = 0; c < cols; ++c) {
      float v = 0.0f;
      switch (regime) {
        case Regime::normal: v = std::ldexp(normal(rng), e); break;
        case Regime::spread: v = std::ldexp(normal(rng), spread_exp(rng)); break;
        case Regime::zeros: v = unit(rng) < 0.4f ? 0.0f : normal(rng) * 100.0f; break;
        case Regime::tiny: v = std::ldexp(normal(rng), tiny_exp(rng)); break;
      }
      m.set(r, c, v);
    }
  }
  return m;
}

// A recipe with its resolved block extents; 0 = the whole dimension.
struct RecipeCase {
  ops::Recipe recipe;
  std::int64_t block_rows;
  std::int64_t block_cols;
  const char* name;

  std::int64_t resolved_rows(std::int64_t rows) const { return block_rows == 0 ? rows : block_rows; }
  std::int64_t resolved_cols(std::int64_t cols) const { return block_cols == 0 ? cols : block_cols; }
};

inline const RecipeCase kScaledRecipes[] = {
    {ops::Recipe::current, 0, 0, "current"},
    {ops::Recipe::per_channel, 1, 0, "per_channel rows"},
    {ops::Recipe::per_channel, 0, 1, "per_channel cols"},
    {ops::Recipe::block, 1, 128, "block 1x128"},
    {ops::Recipe::block, 128, 128, "block 128x128"},
    {ops::Recipe::mx, 1, 32, "mx"},
};

inline bool is_fp8(ops::ElementFormat f) { return f == ops::ElementFormat::e4m3 || f == ops::ElementFormat::e5m2; }

inline std::int32_t code_dtype(ops::ElementFormat f) {
  switch (f) {
    case ops::ElementFormat::e4m3: return FRUGAL_DTYPE_FLOAT8_E4M3FN;
    case ops::ElementFormat::e5m2: return FRUGAL_DTYPE_FLOAT8_E5M2;
    default: return FRUGAL_DTYPE_INT8;
  }
}

inline const char* format_name(ops::ElementFormat f) {
  switch (f) {
    case ops::ElementFormat::e4m3: return "e4m3";
    case ops::ElementFormat::e5m2: return "e5m2";
    case ops::ElementFormat::int8: return "int8";
    case ops::ElementFormat::int8_asym: break;
  }
  return "int8_asym";
}

inline frugal::quant::Fp8Format fp8_of(ops::ElementFormat f) {
  return f == ops::ElementFormat::e4m3 ? frugal::quant::Fp8Format::e4m3fn : frugal::quant::Fp8Format::e5m2;
}

// Half an ulp of the fp8 format at v (|v| rounded into the format): in the
// normal range 2^(floor(log2|v|) - mantissa_bits - 1); below the smallest
// normal 2^emin, half the subnormal spacing 2^(emin - mantissa_bits - 1).
inline double fp8_half_ulp(double v, ops::ElementFormat f) {
  const int mantissa = f == ops::ElementFormat::e4m3 ? 3 : 2;
  const int emin = f == ops::ElementFormat::e4m3 ? -6 : -14;
  const double a = std::fabs(v);
  const int e = a < std::ldexp(1.0, emin) ? emin : std::ilogb(a);
  return std::ldexp(1.0, e - mantissa - 1);
}

// Bytes of a float array, for exact comparisons that treat equal NaNs as equal.
inline std::vector<std::uint8_t> bytes_of(const std::vector<float>& v) {
  std::vector<std::uint8_t> out(v.size() * 4);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

}  // namespace quant_ops_test
