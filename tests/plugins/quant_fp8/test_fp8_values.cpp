// Hand-checked FP8 values, independent of any reference: the spec's special
// codes and boundaries (several as static_asserts, since the conversions are
// constexpr), and round trips over all 256 codes.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

#include "formats/fp8.hpp"
#include "test_support.hpp"

using namespace frugal::quant;

constexpr auto e4_sat = fp32_to_fp8<Fp8Format::e4m3fn, Saturation::finite>;
constexpr auto e4_nosat = fp32_to_fp8<Fp8Format::e4m3fn, Saturation::none>;
constexpr auto e5_sat = fp32_to_fp8<Fp8Format::e5m2, Saturation::finite>;
constexpr auto e5_nosat = fp32_to_fp8<Fp8Format::e5m2, Saturation::none>;
constexpr auto e4_dec = fp8_to_fp32<Fp8Format::e4m3fn>;
constexpr auto e5_dec = fp8_to_fp32<Fp8Format::e5m2>;

// Max, one, and the max + 1/2 ulp boundary in each format.
static_assert(e4_sat(448.0f) == 0x7E && e4_nosat(448.0f) == 0x7E);
static_assert(e4_sat(1.0f) == 0x38 && e5_sat(1.0f) == 0x3C);
static_assert(e4_nosat(464.0f) == 0x7E);  // tie: 448 (mantissa 110) is even
static_assert(e4_nosat(464.00003f) == 0x7F && e4_sat(464.00003f) == 0x7E);
static_assert(e5_sat(57344.0f) == 0x7B && e5_nosat(57344.0f) == 0x7B);
static_assert(e5_nosat(61440.0f) == 0x7C && e5_sat(61440.0f) == 0x7B);  // tie goes up to 2^16
static_assert(e5_nosat(61439.996f) == 0x7B);
static_assert(e4_dec(0x7E) == 448.0f && e5_dec(0x7B) == 57344.0f && e4_dec(0xFE) == -448.0f);
// Smallest subnormals: E4M3 2^-9, E5M2 2^-16; half of them ties to zero (even).
static_assert(e4_dec(0x01) == 0x1p-9f && e5_dec(0x01) == 0x1p-16f);
static_assert(e4_sat(0x1p-10f) == 0x00 && e4_sat(0x1.000002p-10f) == 0x01 && e4_sat(0x3p-10f) == 0x02);
static_assert(e5_sat(0x1p-17f) == 0x00 && e5_sat(0x3p-17f) == 0x02 && e5_sat(-0x1p-16f) == 0x81);
// Largest subnormal rounds up into the smallest normal.
static_assert(e4_sat(0x7.8p-9f) == 0x08 && e4_dec(0x08) == 0x1p-6f);
static_assert(e5_sat(0x3.8p-16f) == 0x04 && e5_dec(0x04) == 0x1p-14f);

TEST_CASE("fp8 special values", "[fp8]") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Signed zeros keep their sign.
  CHECK(e4_sat(-0.0f) == 0x80);
  CHECK(e5_nosat(-0.0f) == 0x80);
  CHECK(std::signbit(e4_dec(0x80)));
  CHECK(e4_dec(0x80) == 0.0f);
  // Inf: saturating clamps to +-max; otherwise NaN (E4M3FN) or Inf (E5M2).
  CHECK(e4_sat(inf) == 0x7E);
  CHECK(e4_sat(-inf) == 0xFE);
  CHECK(e4_nosat(inf) == 0x7F);
  CHECK(e4_nosat(-inf) == 0xFF);
  CHECK(e5_sat(-inf) == 0xFB);
  CHECK(e5_nosat(inf) == 0x7C);
  CHECK(e5_nosat(-inf) == 0xFC);
  CHECK(std::isinf(e5_dec(0x7C)));
  CHECK(e5_dec(0xFC) == -inf);
  // Every NaN (any sign, payload, signalling or quiet) gives the canonical 0x7F.
  for (const std::uint32_t bits : {0x7FC0'0000u, 0xFFC0'0000u, 0x7F80'0001u, 0xFF80'0001u, 0x7FFF'FFFFu}) {
    INFO(std::hex << bits);
    CHECK(e4_sat(bits_float(bits)) == 0x7F);
    CHECK(e4_nosat(bits_float(bits)) == 0x7F);
    CHECK(e5_sat(bits_float(bits)) == 0x7F);
    CHECK(e5_nosat(bits_float(bits)) == 0x7F);
  }
  CHECK(e4_sat(nan) == 0x7F);
  // NaN codes decode to NaN; E4M3FN's S.1111.110 is a number, E5M2's 0x7D-0x7F and 0xFD-0xFF are NaN.
  CHECK(std::isnan(e4_dec(0x7F)));
  CHECK(std::isnan(e4_dec(0xFF)));
  CHECK(e4_dec(0x7F - 8) == 240.0f);  // 0x77 = 1.111 * 2^7
  for (unsigned c : {0x7Du, 0x7Eu, 0x7Fu, 0xFDu, 0xFEu, 0xFFu}) CHECK(std::isnan(e5_dec(static_cast<std::uint8_t>(c))));
}

TEST_CASE("every non-NaN fp8 code survives decode then encode in both modes", "[fp8]") {
  for (const auto& mode : quant_test::all_modes) {
    for (unsigned c = 0; c < 256; ++c) {
      const auto code = static_cast<std::uint8_t>(c);
      const float x = fp8_to_fp32(code, mode.format);
      INFO(mode.name << " code " << c);
      if (std::isnan(x)) {
        CHECK(fp32_to_fp8(x, mode.format, mode.sat) == 0x7F);
      } else if (std::isinf(x)) {
        CHECK(fp32_to_fp8(x, mode.format, mode.sat) == (mode.sat == Saturation::finite ? (c & 0x80u) | 0x7Bu : c));
      } else {
        CHECK(fp32_to_fp8(x, mode.format, mode.sat) == code);
      }
    }
  }
}

TEST_CASE("fp8 decoding is monotonic over the positive codes", "[fp8]") {
  // Codes 0x00..max order like their values, each step a power-of-two ulp.
  float prev = e4_dec(0);
  for (unsigned c = 1; c <= 0x7E; ++c) {
    const float x = e4_dec(static_cast<std::uint8_t>(c));
    CHECK(x > prev);
    prev = x;
  }
  prev = e5_dec(0);
  for (unsigned c = 1; c <= 0x7C; ++c) {
    const float x = e5_dec(static_cast<std::uint8_t>(c));
    CHECK(x > prev);
    prev = x;
  }
}

TEST_CASE("midpoints between neighbouring E4M3 codes round to the even code", "[fp8]") {
  // The exact midpoint of two neighbours (exact in fp32) must tie to the code with
  // an even last bit; just above it goes up, just below goes down.
  for (unsigned c = 0; c < 0x7E; ++c) {
    const float lo = e4_dec(static_cast<std::uint8_t>(c));
    const float hi = e4_dec(static_cast<std::uint8_t>(c + 1));
    const float mid = (lo + hi) / 2;
    INFO("codes " << c << "," << c + 1);
    CHECK(e4_nosat(mid) == ((c & 1u) ? c + 1 : c));
    CHECK(e4_nosat(std::nextafter(mid, hi)) == c + 1);
    CHECK(e4_nosat(std::nextafter(mid, lo)) == c);
  }
}
