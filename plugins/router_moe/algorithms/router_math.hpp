// exp, log and the sigmoid in fp32 with the same bits on the host and on a
// CUDA device.
//
// The routers' softmax and sigmoid decide which experts win, so the CUDA
// path must reproduce the CPU path's scores bit for bit. Neither libm's
// expf / logf nor CUDA's are specified to the last bit, and they disagree.
// These are built from IEEE operations only (+, -, *, / in double, and
// integer bit manipulation), each rounding the same way everywhere, so the
// CPU reference and the kernels share them.
//
// Method: the argument goes to double (exactly), the function is evaluated
// there to a relative error below 2^-46, and the result is rounded to float
// once. The float result is therefore within 0.5 + 2^-22 ulp of the true
// value: correctly rounded except within a hair of a rounding boundary.
// Over all 2^32 inputs the largest errors are 0.50000004 ulp (exp) and
// 0.5 ulp (log), two inputs each not the nearest float
// (tests/plugins/router_moe/test_router_math.cpp checks a dense sample on every run).
// Overflow gives +inf, underflow gradual denormals then +0, as the double ->
// float conversion rounds them; a NaN comes back quieted with its payload.
//
// Every a * b + c must round twice, as written: the CPU routers are built
// with -ffp-contract=off and the kernels with --fmad=false, so neither side
// fuses them into an FMA. Products and sums also sit in separate statements
// here, which keeps an expression-level contraction (clang's default) away.
#pragma once

#include <cstdint>

#if !defined(__CUDA_ARCH__)
#include <bit>
#endif

#if defined(__CUDACC__)
#define FRUGAL_ROUTER_HD __host__ __device__ __forceinline__
#else
#define FRUGAL_ROUTER_HD inline
#endif

namespace frugal::router::math {

FRUGAL_ROUTER_HD std::uint32_t bits_of(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  return std::bit_cast<std::uint32_t>(f);
#endif
}

FRUGAL_ROUTER_HD float float_of(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  return std::bit_cast<float>(u);
#endif
}

FRUGAL_ROUTER_HD std::uint64_t bits_of(double d) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint64_t>(__double_as_longlong(d));
#else
  return std::bit_cast<std::uint64_t>(d);
#endif
}

FRUGAL_ROUTER_HD double double_of(std::uint64_t u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(u));
#else
  return std::bit_cast<double>(u);
#endif
}

inline constexpr std::uint32_t kAbs = 0x7FFF'FFFFu;
inline constexpr std::uint32_t kInf = 0x7F80'0000u;
inline constexpr std::uint32_t kQuiet = 0x0040'0000u;
inline constexpr std::uint32_t kNan = 0x7FC0'0000u;  // what log of a negative number returns

FRUGAL_ROUTER_HD bool is_nan(float x) { return (bits_of(x) & kAbs) > kInf; }

// p * r + c as two roundings (see the top of the file).
FRUGAL_ROUTER_HD double mul_add(double p, double r, double c) {
  const double product = p * r;
  return product + c;
}

// c[0] x^(N-1) + ... + c[N-1] by Horner's rule, highest power first.
template <int N>
FRUGAL_ROUTER_HD double polynomial(double x, const double (&c)[N]) {
  double p = c[0];
  for (int i = 1; i < N; ++i) p = mul_add(p, x, c[i]);
  return p;
}

// e^x, |result - e^x| <= (0.5 + 2^-22) ulp.
FRUGAL_ROUTER_HD float exp_f32(float x) {
  if (is_nan(x)) return float_of(bits_of(x) | kQuiet);
  // Past +-110 every float result is +inf or +0 (e^88.73 overflows, e^-103.98
  // rounds to 0); clamping there (and Inf with it) keeps n small.
  double d = x;
  d = d > 110.0 ? 110.0 : d;
  d = d < -110.0 ? -110.0 : d;
  // x = n ln2 + r with n = nearest(x / ln2), |r| <= ln2 / 2 (+ rounding).
  // Adding and subtracting 1.5 * 2^52 rounds to an integer (nearest even).
  constexpr double kLog2e = 1.4426950408889634074;
  constexpr double kRound = 6755399441055744.0;  // 1.5 * 2^52
  const double t = d * kLog2e;
  const double n = (t + kRound) - kRound;
  // Cody-Waite: kLn2Hi has 32 significant bits, so n * kLn2Hi is exact for
  // |n| < 2^21; kLn2Lo carries the rest of ln 2.
  constexpr double kLn2Hi = 6.93147180369123816490e-01;  // 0x3FE62E42FEE00000
  constexpr double kLn2Lo = 1.90821492927058770002e-10;  // 0x3DEA39EF35793C76
  const double r = (d - n * kLn2Hi) - n * kLn2Lo;
  // e^r by its Taylor series to r^11 (1/11!, ..., 1/2, 1, 1): the remainder
  // is below 2^-46 e^r for |r| <= 0.347.
  const double taylor[] = {1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0, 1.0 / 5040.0, 1.0 / 720.0,
                           1.0 / 120.0,      1.0 / 24.0,      1.0 / 6.0,      0.5,           1.0,          1.0};
  const double p = polynomial(r, taylor);
  // 2^n is a normal double for |n| <= 159; the product is exact, and the
  // conversion rounds once (to a denormal or to Inf where it must).
  const auto exponent = static_cast<std::int64_t>(n) + 1023;
  const double scale = double_of(static_cast<std::uint64_t>(exponent) << 52);
  return static_cast<float>(p * scale);
}

// ln x, |result - ln x| <= (0.5 + 2^-22) ulp; ln(+-0) = -inf, ln(x < 0) =
// NaN (0x7FC00000), ln(+inf) = +inf.
FRUGAL_ROUTER_HD float log_f32(float x) {
  const std::uint32_t u = bits_of(x);
  if (is_nan(x)) return float_of(u | kQuiet);
  if ((u & kAbs) == 0) return float_of(kInf | 0x8000'0000u);
  if ((u >> 31) != 0) return float_of(kNan);
  if (u == kInf) return x;
  // x = 2^e * m with m in [sqrt(1/2), sqrt(2)). In double every float,
  // denormals included, is normal, so the exponent field gives e directly.
  const std::uint64_t du = bits_of(static_cast<double>(x));
  auto e = static_cast<std::int64_t>((du >> 52) & 0x7FF) - 1023;
  double m = double_of((du & 0x000F'FFFF'FFFF'FFFFull) | (std::uint64_t{1023} << 52));
  if (m > 1.4142135623730951) {
    m = m * 0.5;
    e = e + 1;
  }
  // ln m = 2 atanh(f) = 2f (1 + s/3 + s^2/5 + ...), f = (m - 1) / (m + 1),
  // s = f^2 <= 0.0295: the series to s^7 leaves less than 2^-44 of ln m.
  // m - 1 and m + 1 are exact (m has 24 significant bits).
  const double f = (m - 1.0) / (m + 1.0);
  const double s = f * f;
  const double odd[] = {1.0 / 15.0, 1.0 / 13.0, 1.0 / 11.0, 1.0 / 9.0, 1.0 / 7.0, 1.0 / 5.0, 1.0 / 3.0};
  const double q = polynomial(s, odd);
  const double two_f = f + f;
  const double tail = two_f * s;
  const double ln_m = mul_add(tail, q, two_f);
  constexpr double kLn2 = 0.69314718055994530942;
  const double scaled = static_cast<double>(e) * kLn2;
  return static_cast<float>(scaled + ln_m);
}

// 1 / (1 + e^-v) in fp32, as the DeepSeek-V3 gate scores: exactly 0 once
// e^-v overflows (v < -88.7), exactly 1 once e^-v < 2^-25.
FRUGAL_ROUTER_HD float sigmoid_f32(float v) { return 1.0f / (1.0f + exp_f32(-v)); }

}  // namespace frugal::router::math
