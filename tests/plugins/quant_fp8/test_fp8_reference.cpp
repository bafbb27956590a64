// Bit-exactness against the CUDA toolkit's host conversions (an independent
// implementation): every fp16 and bf16 pattern, all 256 codes of each
// format, the special values, and a large random sample of fp32 patterns, in
// both formats and both saturation modes. Without the toolkit headers the
// cases pass with a warning saying the reference was not available.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

#include "formats/fp8.hpp"
#include "formats/half.hpp"
#include "fp8_reference.hpp"
#include "test_support.hpp"

using namespace frugal::quant;
using quant_test::all_modes;

#if FRUGAL_QUANT_HAVE_FP8_REFERENCE

// Sanitized builds run ~20x slower: they check a smaller random sample.
#ifndef FRUGAL_QUANT_RANDOM_PATTERNS
#define FRUGAL_QUANT_RANDOM_PATTERNS 100000000ull
#endif

namespace {

// Prints the first few mismatches so a failure says which pattern and mode.
std::uint64_t report(std::uint64_t& shown, const char* what, std::uint32_t input, unsigned got, unsigned want) {
  if (shown < 8) {
    ++shown;
    std::printf("mismatch %s: input 0x%08x got 0x%02x want 0x%02x\n", what, input, got, want);
  }
  return 1;
}

}  // namespace

TEST_CASE("fp16 -> fp8 equals the CUDA reference for all 65536 patterns", "[fp8][reference]") {
  for (const auto& mode : all_modes) {
    std::uint64_t mismatches = 0, shown = 0;
    for (std::uint32_t h = 0; h <= 0xFFFF; ++h) {
      const auto got = fp16_to_fp8(static_cast<std::uint16_t>(h), mode.format, mode.sat);
      const auto want = quant_test::ref_fp16_to_fp8(static_cast<std::uint16_t>(h), mode.format, mode.sat);
      if (got != want) mismatches += report(shown, mode.name, h, got, want);
    }
    INFO(mode.name);
    CHECK(mismatches == 0);
  }
}

TEST_CASE("bf16 -> fp8 equals the CUDA reference for all 65536 patterns", "[fp8][reference]") {
  for (const auto& mode : all_modes) {
    std::uint64_t mismatches = 0, shown = 0;
    for (std::uint32_t b = 0; b <= 0xFFFF; ++b) {
      const auto got = bf16_to_fp8(static_cast<std::uint16_t>(b), mode.format, mode.sat);
      const auto want = quant_test::ref_bf16_to_fp8(static_cast<std::uint16_t>(b), mode.format, mode.sat);
      if (got != want) mismatches += report(shown, mode.name, b, got, want);
    }
    INFO(mode.name);
    CHECK(mismatches == 0);
  }
}

TEST_CASE("fp8 -> fp32 and fp16 equal the CUDA reference for all 256 codes", "[fp8][reference]") {
  for (const auto format : {Fp8Format::e4m3fn, Fp8Format::e5m2}) {
    for (unsigned c = 0; c < 256; ++c) {
      const auto code = static_cast<std::uint8_t>(c);
      const std::uint16_t want16 = quant_test::ref_fp8_to_fp16(code, format);
      const float want = quant_test::ref_fp16_to_fp32(want16);
      const float got = fp8_to_fp32(code, format);
      INFO("format " << static_cast<int>(format) << " code " << c);
      if (std::isnan(want)) {
        // The reference gives one canonical NaN; ours keeps the code's sign.
        CHECK(std::isnan(got));
        CHECK(std::isnan(fp16_to_fp32(format == Fp8Format::e4m3fn ? fp8_to_fp16<Fp8Format::e4m3fn>(code)
                                                                  : fp8_to_fp16<Fp8Format::e5m2>(code))));
      } else {
        CHECK(float_bits(got) == float_bits(want));
        const std::uint16_t got16 =
            format == Fp8Format::e4m3fn ? fp8_to_fp16<Fp8Format::e4m3fn>(code) : fp8_to_fp16<Fp8Format::e5m2>(code);
        CHECK(got16 == want16);
      }
    }
  }
}

TEST_CASE("fp32 -> fp8 equals the CUDA reference on special values", "[fp8][reference]") {
  const float inf = std::numeric_limits<float>::infinity();
  const float values[] = {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(), bits_float(0x7F80'0001u),
                          bits_float(0xFFC0'0000u), bits_float(0xFFFF'FFFFu), bits_float(0x7FBF'FFFFu),
                          // E4M3FN: max, the 464 tie (rounds to even 448), either side, 480.
                          448.0f, 464.0f, std::nextafter(464.0f, 0.0f), std::nextafter(464.0f, inf), 480.0f, -464.0f,
                          -std::nextafter(464.0f, inf),
                          // E5M2: max, the 61440 tie (rounds to 65536: overflow), either side.
                          57344.0f, 61440.0f, std::nextafter(61440.0f, 0.0f), std::nextafter(61440.0f, inf), 65536.0f,
                          -61440.0f,
                          // Subnormal ranges: E4M3 ulp 2^-9 (min normal 2^-6), E5M2 ulp 2^-16 (min normal 2^-14).
                          0x1p-9f, 0x1p-10f, std::nextafter(0x1p-10f, inf), 0x3p-10f, 0x1p-6f,
                          std::nextafter(0x1p-6f, 0.0f), 0x7.8p-9f, 0x1p-16f, 0x1p-17f, std::nextafter(0x1p-17f, inf),
                          0x3p-17f, 0x1p-14f, std::nextafter(0x1p-14f, 0.0f), 0x7.8p-16f, -0x1p-17f, -0x1p-10f,
                          // fp32 subnormals and extremes.
                          bits_float(1u), bits_float(0x8000'0001u), std::numeric_limits<float>::min(),
                          std::numeric_limits<float>::max(), -std::numeric_limits<float>::max()};
  for (const auto& mode : all_modes) {
    for (const float v : values) {
      INFO(mode.name << " value " << v << " bits 0x" << std::hex << float_bits(v));
      CHECK(unsigned{fp32_to_fp8(v, mode.format, mode.sat)} ==
            unsigned{quant_test::ref_fp32_to_fp8(v, mode.format, mode.sat)});
    }
  }
}

TEST_CASE("fp32 -> fp8 equals the CUDA reference on random fp32 patterns (1e8 each mode; 2^22 under sanitizers)",
          "[fp8][reference][random]") {
  const std::uint64_t count = FRUGAL_QUANT_RANDOM_PATTERNS;
  for (const auto& mode : all_modes) {
    const std::uint64_t mismatches = quant_test::parallel_count(count, [&](std::uint64_t b, std::uint64_t e) {
      std::uint64_t bad = 0, shown = 0;
      for (std::uint64_t i = b; i < e; ++i) {
        // Two 32-bit patterns per 64-bit draw: half the hashing per check.
        const std::uint64_t r = quant_test::splitmix64(i / 2);
        const auto bits = static_cast<std::uint32_t>(i % 2 ? r >> 32 : r);
        const float x = bits_float(bits);
        const auto got = fp32_to_fp8(x, mode.format, mode.sat);
        const auto want = quant_test::ref_fp32_to_fp8(x, mode.format, mode.sat);
        if (got != want) bad += report(shown, mode.name, bits, got, want);
      }
      return bad;
    });
    INFO(mode.name << ": " << count << " patterns");
    CHECK(mismatches == 0);
  }
}

TEST_CASE("fp16 and bf16 narrowing equal the CUDA reference", "[half][reference]") {
  // All fp16 widen exactly like the reference; random fp32 narrow like it.
  for (std::uint32_t h = 0; h <= 0xFFFF; ++h) {
    const float want = quant_test::ref_fp16_to_fp32(static_cast<std::uint16_t>(h));
    const float got = fp16_to_fp32(static_cast<std::uint16_t>(h));
    if (std::isnan(want)) {
      REQUIRE(std::isnan(got));
    } else {
      REQUIRE(float_bits(got) == float_bits(want));
    }
  }
  const std::uint64_t mismatches =
      quant_test::parallel_count(std::uint64_t{1} << 24, [](std::uint64_t b, std::uint64_t e) {
        std::uint64_t bad = 0;
        for (std::uint64_t i = b; i < e; ++i) {
          const auto bits = static_cast<std::uint32_t>(quant_test::splitmix64(i ^ 0xABCDu));
          const float x = bits_float(bits);
          if (std::isnan(x)) {
            // The reference gives one canonical NaN; ours keeps sign and payload: both must be NaN.
            bad += !std::isnan(fp16_to_fp32(fp32_to_fp16(x))) || !std::isnan(bf16_to_fp32(fp32_to_bf16(x)));
            continue;
          }
          bad += fp32_to_fp16(x) != quant_test::ref_fp32_to_fp16(x);
          bad += fp32_to_bf16(x) != quant_test::ref_fp32_to_bf16(x);
        }
        return bad;
      });
  CHECK(mismatches == 0);
}

#else

TEST_CASE("CUDA reference comparison", "[fp8][reference]") {
  WARN("cuda_fp8.h was not found or does not compile here: the bit-exact reference comparison is skipped");
  SUCCEED();
}

#endif
