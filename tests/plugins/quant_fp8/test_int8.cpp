// INT8 symmetric and asymmetric quantization: hand-checked values (ties to
// even, clamps, NaN/Inf) and round-trip error bounds on random inputs.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

#include "formats/int8.hpp"
#include "test_support.hpp"

using namespace frugal::quant;

static_assert(quantize_int8_symmetric(1.25f, 0.5f) == 2);  // 2.5 ties to even 2
static_assert(quantize_int8_symmetric(1.75f, 0.5f) == 4);  // 3.5 ties to even 4
static_assert(quantize_int8_symmetric(-1.25f, 0.5f) == -2);
static_assert(quantize_int8_symmetric(0.25f, 0.5f) == 0);  // 0.5 ties to 0
static_assert(quantize_int8_symmetric(0.76f, 0.5f) == 2);
static_assert(quantize_int8_symmetric(-1000.0f, 0.5f) == -127);  // never -128
static_assert(quantize_int8_symmetric(63.75f, 0.5f) == 127);     // 127.5 clamps to 127
static_assert(dequantize_int8_symmetric(-127, 0.5f) == -63.5f);
static_assert(quantize_int8_asymmetric(1.25f, 0.5f, 10) == 12);   // rne(2.5) = 2, + 10
static_assert(quantize_int8_asymmetric(0.0f, 0.5f, -20) == -20);  // real 0 is exactly the zero point
static_assert(quantize_int8_asymmetric(-1000.0f, 0.5f, 10) == -128);
static_assert(quantize_int8_asymmetric(1000.0f, 0.5f, 10) == 127);
static_assert(quantize_int8_asymmetric(-0.5f, 1.0f, -128) == -128);  // zp at the bottom: nothing below 0
static_assert(quantize_int8_asymmetric(255.0f, 1.0f, -128) == 127);
static_assert(dequantize_int8_asymmetric(12, 0.5f, 10) == 1.0f);
static_assert(dequantize_int8_asymmetric(-128, 1.0f, 127) == -255.0f);

TEST_CASE("int8 quantization of NaN and Inf", "[int8]") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(quantize_int8_symmetric(inf, 0.1f) == 127);
  CHECK(quantize_int8_symmetric(-inf, 0.1f) == -127);
  CHECK(quantize_int8_symmetric(nan, 0.1f) == 0);
  CHECK(quantize_int8_symmetric(1e38f, 1e-38f) == 127);  // quotient overflows to Inf
  CHECK(quantize_int8_asymmetric(inf, 0.1f, 5) == 127);
  CHECK(quantize_int8_asymmetric(-inf, 0.1f, 5) == -128);
  CHECK(quantize_int8_asymmetric(nan, 0.1f, 5) == 5);
}

TEST_CASE("int8 symmetric round trip stays within half a step", "[int8]") {
  for (const float scale : {1.0f, 0.0078125f, 3.7e-3f, 1234.5f}) {
    std::uint32_t bad = 0;
    for (std::uint64_t i = 0; i < 200000; ++i) {
      // Uniform in [-127.5 * scale, 127.5 * scale].
      const double u = static_cast<double>(quant_test::splitmix64(i) >> 11) * 0x1p-53;
      const auto x = static_cast<float>((u * 255.0 - 127.5) * scale);
      const std::int8_t q = quantize_int8_symmetric(x, scale);
      const float back = dequantize_int8_symmetric(q, scale);
      // Half a step, plus the fp32 roundings of the quotient (|x / scale| <= 128,
      // so at most 2^-17 off, which can flip a near-tie) and of the product.
      bad += std::fabs(static_cast<double>(back) - x) > (0.5 + 0x1p-14) * scale || q == -128;
    }
    INFO("scale " << scale);
    CHECK(bad == 0);
  }
}

TEST_CASE("int8 asymmetric round trip stays within half a step", "[int8]") {
  for (const int zp : {-128, -37, 0, 90, 127}) {
    const float scale = 0.013f;
    std::uint32_t bad = 0;
    for (std::uint64_t i = 0; i < 200000; ++i) {
      // Uniform over the representable range [(-128 - zp) * scale, (127 - zp) * scale].
      const double u = static_cast<double>(quant_test::splitmix64(i + 77) >> 11) * 0x1p-53;
      const auto x = static_cast<float>((-128.0 - zp + u * 255.0) * scale);
      const std::int8_t q = quantize_int8_asymmetric(x, scale, static_cast<std::int8_t>(zp));
      const float back = dequantize_int8_asymmetric(q, scale, static_cast<std::int8_t>(zp));
      // |x / scale| <= 255 here: quotient off by at most 2^-16 (see above).
      bad += std::fabs(static_cast<double>(back) - x) > (0.5 + 0x1p-13) * scale;
    }
    INFO("zero point " << zp);
    CHECK(bad == 0);
  }
}
