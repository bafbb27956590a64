// fp16 and bf16 <-> fp32, hand-checked: known encodings, rounding ties, the
// overflow edge, NaN preservation, and exact round trips of every pattern.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>

#include "formats/half.hpp"

using namespace frugal::quant;

static_assert(fp32_to_fp16(1.0f) == 0x3C00 && fp32_to_fp16(-2.0f) == 0xC000);
static_assert(fp32_to_fp16(65504.0f) == 0x7BFF);  // fp16 max
static_assert(fp32_to_fp16(65520.0f) == 0x7C00);  // max + 1/2 ulp ties up to Inf
static_assert(fp32_to_fp16(65519.996f) == 0x7BFF);
static_assert(fp32_to_fp16(0x1p-24f) == 0x0001 && fp32_to_fp16(0x1p-25f) == 0x0000);  // tie to even 0
static_assert(fp32_to_fp16(0x1.8p-24f) == 0x0002);                                    // 1.5 ulp ties to even 2
static_assert(fp32_to_fp16(1.0f + 0x1p-11f) == 0x3C00);                               // tie down to even
static_assert(fp32_to_fp16(1.0f + 0x3p-11f) == 0x3C02);                               // tie up to even
static_assert(fp16_to_fp32(0x0001) == 0x1p-24f && fp16_to_fp32(0x03FF) == 0x3FFp-24f);
static_assert(fp32_to_bf16(1.0f) == 0x3F80 && fp32_to_bf16(1.0f + 0x1p-8f) == 0x3F80);
static_assert(fp32_to_bf16(1.0f + 0x3p-8f) == 0x3F82);
static_assert(fp32_to_bf16(3.3895314e38f) == 0x7F7F);  // bf16 max
static_assert(bf16_to_fp32(0xC040) == -3.0f);

TEST_CASE("fp16 and bf16 keep NaN and Inf", "[half]") {
  CHECK(fp32_to_fp16(bits_float(0x7F80'0000u)) == 0x7C00);
  CHECK(fp32_to_fp16(bits_float(0xFF80'0000u)) == 0xFC00);
  CHECK(fp32_to_bf16(bits_float(0xFF80'0000u)) == 0xFF80);
  // A signalling NaN whose payload sits below the cut must stay NaN (not Inf).
  const float snan = bits_float(0x7F80'0001u);
  CHECK(fp32_to_fp16(snan) == 0x7E00);
  CHECK(fp32_to_bf16(snan) == 0x7FC0);
  CHECK(fp32_to_fp16(bits_float(0xFFC0'2000u)) == 0xFE01);  // sign and top payload kept
  CHECK(fp32_to_bf16(bits_float(0xFFC1'0000u)) == 0xFFC1);
  CHECK(std::isnan(fp16_to_fp32(0x7C01)));
  CHECK(float_bits(fp16_to_fp32(0xFE01)) == 0xFFC0'2000u);
  CHECK(std::isinf(fp16_to_fp32(0xFC00)));
  CHECK(fp16_to_fp32(0xFC00) < 0.0f);
}

TEST_CASE("every non-NaN fp16 and bf16 pattern round-trips through fp32 exactly", "[half]") {
  std::uint32_t bad16 = 0, bad_bf = 0;
  for (std::uint32_t p = 0; p <= 0xFFFF; ++p) {
    const auto h = static_cast<std::uint16_t>(p);
    const bool nan16 = (p & 0x7FFFu) > 0x7C00u;
    const bool nan_bf = (p & 0x7FFFu) > 0x7F80u;
    bad16 += nan16 ? !std::isnan(fp16_to_fp32(h)) : fp32_to_fp16(fp16_to_fp32(h)) != h;
    bad_bf += nan_bf ? !std::isnan(bf16_to_fp32(h)) : fp32_to_bf16(bf16_to_fp32(h)) != h;
  }
  CHECK(bad16 == 0);
  CHECK(bad_bf == 0);
}
