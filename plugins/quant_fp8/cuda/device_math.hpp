// Scalar arithmetic shared by the CUDA kernels and the host: ports of the
// CPU reference (recipes/scale_from_amax, recipes/mx_scaling, recipes/e8m0,
// formats/fp8 and formats/half) that give the same bits on both sides.
//
// Plain C++ when not compiled by nvcc, so a CPU test checks every function
// here against the reference it ports (tests/device/quant_cuda_port_test.cpp).
// Each function follows its reference operation by operation: the same
// IEEE fp32/fp64 operations in the same order, exact bit manipulations
// elsewhere. The kernels are built without fast-math and without
// flush-to-zero, so every such operation rounds as it does on the host.
//
// One thing differs between GPU and host arithmetic: a product with a NaN
// operand. x86 returns the first NaN operand (quieted), or its "default NaN"
// 0xFFC00000 for an invalid product like Inf * 0; GPUs return the canonical
// NaN 0x7FFFFFFF. mul_as_host() reproduces the host's bits so fake-quantized
// and dequantized outputs match the CPU path byte for byte, NaNs included.
#pragma once

#include <math.h>

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define FRUGAL_QHD __host__ __device__ __forceinline__
#else
#define FRUGAL_QHD inline
#endif

namespace frugal::quant::cuda::dm {

// ---------------------------------------------------------------------------
// Bits
// ---------------------------------------------------------------------------

FRUGAL_QHD std::uint32_t f2u(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  std::uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}

FRUGAL_QHD float u2f(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f = 0.0f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}

inline constexpr std::uint32_t kAbsMask = 0x7FFF'FFFFu;
inline constexpr std::uint32_t kInfBits = 0x7F80'0000u;
inline constexpr std::uint32_t kQuietNan = 0x7FC0'0000u;  // std::numeric_limits<float>::quiet_NaN()

FRUGAL_QHD bool is_nan_bits(std::uint32_t u) { return (u & kAbsMask) > kInfBits; }
FRUGAL_QHD bool is_finite_bits(std::uint32_t u) { return (u & kInfBits) != kInfBits; }

// The amax key of a value: the bits of |x|, with every NaN mapped to the
// canonical quiet NaN. Keys order like the magnitudes and NaN sits above
// +Inf, so an unsigned max of keys is the NaN-propagating amax of
// recipes/amax.hpp, and its result is the bits of that amax.
FRUGAL_QHD std::uint32_t amax_key(float x) {
  const std::uint32_t a = f2u(x) & kAbsMask;
  return a > kInfBits ? kQuietNan : a;
}

FRUGAL_QHD std::uint32_t max_u32(std::uint32_t a, std::uint32_t b) { return a > b ? a : b; }

// ---------------------------------------------------------------------------
// Scales (recipes/scale_from_amax.cpp)
// ---------------------------------------------------------------------------

inline constexpr float kMinScale = 0x1p-126f;
inline constexpr float kMaxScale = 0x1p126f;

struct ScalePair {
  float scale = 1.0f;
  float scale_inv = 1.0f;
};

// recipes::scale_for_target: false where that returns nullopt (amax 0,
// negative, NaN or Inf), else the pair in *out.
FRUGAL_QHD bool scale_for_target(float amax, double target, ScalePair* out) {
  if (!is_finite_bits(f2u(amax)) || !(amax > 0.0f)) return false;
  const double a = amax;
  double q = target / a;
  // std::clamp(q, lo, hi): lo when q < lo, hi when hi < q.
  const double lo = kMinScale;
  const double hi = kMaxScale;
  q = q < lo ? lo : (hi < q ? hi : q);
  float s = static_cast<float>(q);
  // std::nextafter(s, 0.0f) of a positive normal s is one ulp down: its bits minus one.
  if (a * static_cast<double>(s) > target && s > kMinScale) s = u2f(f2u(s) - 1u);
  out->scale = s;
  out->scale_inv = 1.0f / s;
  return true;
}

// recipes::current_scale: scale_for_target, or 1 / 1 when there is none.
FRUGAL_QHD ScalePair current_scale(float amax, float fp8_max) {
  ScalePair p;
  if (!scale_for_target(amax, static_cast<double>(fp8_max), &p)) p = ScalePair{};
  return p;
}

// ---------------------------------------------------------------------------
// E8M0 and MX (recipes/e8m0.cpp, recipes/mx_scaling.cpp)
// ---------------------------------------------------------------------------

inline constexpr std::uint8_t kE8M0Nan = 0xFF;
inline constexpr std::uint8_t kE8M0One = 127;

FRUGAL_QHD std::uint8_t e8m0_from_exponent(int exponent) {
  const int e = exponent < -127 ? -127 : (exponent > 127 ? 127 : exponent);
  return static_cast<std::uint8_t>(e + 127);
}

// 2^(code - 127) exactly (code 0 is the subnormal 2^-127); 0xFF is the quiet NaN.
FRUGAL_QHD float e8m0_decode(std::uint8_t code) {
  if (code == kE8M0Nan) return u2f(kQuietNan);
  if (code == 0) return u2f(0x0040'0000u);
  return u2f(static_cast<std::uint32_t>(code) << 23);
}

// recipes::mx_scale_code for a valid fp8_max (the formats' 448 or 57344;
// the host version checks it, the callers here only pass those).
FRUGAL_QHD std::uint8_t mx_scale_code(float amax, float fp8_max) {
  if (!is_finite_bits(f2u(amax))) return kE8M0Nan;
  if (!(amax > 0.0f)) return kE8M0One;
  const double a = amax;
  const double m = fp8_max;
  int e = 0;
  const double frac = ::frexp(a / m, &e);
  int k = frac == 0.5 ? e - 1 : e;
  while (a > ::ldexp(m, k)) ++k;
  while (a <= ::ldexp(m, k - 1)) --k;
  return e8m0_from_exponent(k);
}

// The MX pair of quant_op.hpp: scale_inv = 2^(code - 127), the stored value;
// scale = 2^(127 - code), its exact reciprocal; both NaN for code 0xFF.
FRUGAL_QHD ScalePair mx_scale_pair(std::uint8_t code) {
  ScalePair p;
  p.scale_inv = e8m0_decode(code);
  p.scale = e8m0_decode(static_cast<std::uint8_t>(254 - code));  // 254 - 255 wraps to 0xFF: NaN
  return p;
}

// ---------------------------------------------------------------------------
// fp16 / bf16 (formats/half.hpp)
// ---------------------------------------------------------------------------

FRUGAL_QHD std::uint32_t select(bool c, std::uint32_t x, std::uint32_t y) { return c ? x : y; }

FRUGAL_QHD float fp16_to_fp32(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t mag = static_cast<std::uint32_t>(h & 0x7FFFu) << 13;
  const std::uint32_t exp = mag & 0x0F80'0000u;
  const std::uint32_t normal = mag + (112u << 23);
  const std::uint32_t quiet = (mag & 0x007F'FFFFu) != 0 ? 0x0040'0000u : 0u;
  const std::uint32_t special = mag | kInfBits | quiet;
  const std::uint32_t sub = f2u(u2f(mag + (113u << 23)) - u2f(113u << 23));
  std::uint32_t r = select(exp == 0x0F80'0000u, special, normal);
  r = select(exp == 0, sub, r);
  return u2f(r | sign);
}

FRUGAL_QHD std::uint16_t fp32_to_fp16(float f) {
  const std::uint32_t u = f2u(f);
  const std::uint32_t sign = (u >> 16) & 0x8000u;
  const std::uint32_t a = u & kAbsMask;
  const std::uint32_t normal = ((a + 0x0FFFu + ((a >> 13) & 1u)) >> 13) - (112u << 10);
  const std::uint32_t sub = f2u(u2f(a) + 0.5f) - f2u(0.5f);
  std::uint32_t r = select(a < 0x3880'0000u, sub, normal);
  r = r > 0x7C00u ? 0x7C00u : r;
  r = select(a > kInfBits, 0x7E00u | ((a >> 13) & 0x03FFu), r);
  return static_cast<std::uint16_t>(r | sign);
}

FRUGAL_QHD float bf16_to_fp32(std::uint16_t b) { return u2f(static_cast<std::uint32_t>(b) << 16); }

FRUGAL_QHD std::uint16_t fp32_to_bf16(float f) {
  const std::uint32_t u = f2u(f);
  const std::uint32_t rounded = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
  const std::uint32_t nan = (u >> 16) | 0x0040u;
  return static_cast<std::uint16_t>((u & kAbsMask) > kInfBits ? nan : rounded);
}

// ---------------------------------------------------------------------------
// fp8 -> fp32 (formats/fp8.hpp), exact
// ---------------------------------------------------------------------------

FRUGAL_QHD float e4m3_to_fp32(std::uint8_t c) {
  const std::uint32_t sign = static_cast<std::uint32_t>(c & 0x80u) << 24;
  const std::uint32_t mag = static_cast<std::uint32_t>(c & 0x7Fu) << 20;
  const std::uint32_t normal = mag + (120u << 23);
  const std::uint32_t sub = f2u(u2f(mag + (121u << 23)) - u2f(121u << 23));
  std::uint32_t r = select((c & 0x78u) == 0, sub, normal);
  r = select((c & 0x7Fu) == 0x7Fu, kQuietNan, r);
  return u2f(r | sign);
}

FRUGAL_QHD float e5m2_to_fp32(std::uint8_t c) { return fp16_to_fp32(static_cast<std::uint16_t>(c << 8)); }

// format: 0 = E4M3FN, 1 = E5M2.
FRUGAL_QHD float fp8_to_fp32(std::uint8_t c, int format) { return format == 0 ? e4m3_to_fp32(c) : e5m2_to_fp32(c); }

// ---------------------------------------------------------------------------
// Products with the host's NaN bits
// ---------------------------------------------------------------------------

inline constexpr std::uint32_t kHostDefaultNan = 0xFFC0'0000u;  // x86's "real indefinite"

// a * b as x86 SSE computes it, NaN bits included: a NaN operand is returned
// quieted (the first one when both are NaN), an invalid product (Inf * 0)
// gives the default NaN. Every other product is the IEEE one on both sides.
FRUGAL_QHD float mul_as_host(float a, float b) {
  const std::uint32_t ua = f2u(a);
  const std::uint32_t ub = f2u(b);
  if (is_nan_bits(ua)) return u2f(ua | 0x0040'0000u);
  if (is_nan_bits(ub)) return u2f(ub | 0x0040'0000u);
  const float r = a * b;
  return is_nan_bits(f2u(r)) ? u2f(kHostDefaultNan) : r;
}

}  // namespace frugal::quant::cuda::dm
