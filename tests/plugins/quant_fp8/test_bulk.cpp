// Bulk conversions equal the scalar ones element by element (random inputs
// with NaN/Inf/subnormal lanes, odd lengths, unaligned starts), the amax is
// right, and the multi-threaded wrapper matches the single-threaded path.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "formats/bulk.hpp"
#include "formats/int8.hpp"
#include "formats/parallel.hpp"
#include "test_support.hpp"

using namespace frugal::quant;

namespace {

// Mostly values around the fp8 ranges, with special lanes mixed in.
std::vector<float> make_input(std::size_t n, std::uint64_t seed) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t r = quant_test::splitmix64(seed * 1'000'003 + i);
    switch (r % 16) {
      case 0: v[i] = std::numeric_limits<float>::quiet_NaN(); break;
      case 1:
        v[i] = (r & 0x100) ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
        break;
      case 2: v[i] = bits_float(static_cast<std::uint32_t>(r >> 32)); break;  // any pattern
      default: {
        // Exponent in [2^-20, 2^17): subnormal, normal and overflow ranges of both formats.
        const auto mant = static_cast<std::uint32_t>(r >> 40) & 0x7F'FFFFu;
        const auto exp = static_cast<std::uint32_t>(127 - 20 + (r >> 8) % 37);
        v[i] = bits_float(((r & 0x80) ? 0x8000'0000u : 0u) | (exp << 23) | mant);
      }
    }
  }
  return v;
}

float naive_amax(const float* p, std::size_t n) {
  float m = 0.0f;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isnan(p[i])) m = std::max(m, std::fabs(p[i]));
  }
  return m;
}

}  // namespace

TEST_CASE("bulk fp32/fp16/bf16 -> fp8 equals the scalar conversion", "[bulk]") {
  for (const std::size_t n : {0u, 1u, 3u, 17u, 63u, 64u, 1001u, 4099u}) {
    const auto src = make_input(n + 1, n);
    // Start one element in: an unaligned span, as callers may pass.
    const std::span<const float> in(src.data() + 1, n);
    std::vector<std::uint16_t> h(n), b(n);
    for (std::size_t i = 0; i < n; ++i) {
      h[i] = fp32_to_fp16(in[i]);
      b[i] = fp32_to_bf16(in[i]);
    }
    for (const auto& mode : quant_test::all_modes) {
      std::vector<std::uint8_t> out(n, 0xAA), out16(n, 0xAA), outbf(n, 0xAA);
      const float amax = fp32_to_fp8(in, out, mode.format, mode.sat);
      const float amax16 = fp16_to_fp8(h, out16, mode.format, mode.sat);
      const float amaxbf = bf16_to_fp8(b, outbf, mode.format, mode.sat);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < n; ++i) {
        bad += out[i] != fp32_to_fp8(in[i], mode.format, mode.sat);
        bad += out16[i] != fp16_to_fp8(h[i], mode.format, mode.sat);
        bad += outbf[i] != bf16_to_fp8(b[i], mode.format, mode.sat);
      }
      INFO(mode.name << " n " << n);
      CHECK(bad == 0);
      CHECK(amax == naive_amax(in.data(), n));
      // Narrowing is monotonic, so the amax of the narrowed inputs is the narrowed amax.
      CHECK(amax16 == fp16_to_fp32(fp32_to_fp16(amax)));
      CHECK(amaxbf == bf16_to_fp32(fp32_to_bf16(amax)));
    }
  }
}

TEST_CASE("bulk fp8 -> fp32/fp16/bf16 equals the scalar conversion", "[bulk]") {
  std::vector<std::uint8_t> codes(257 * 3);
  for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<std::uint8_t>(i * 7);
  for (const auto format : {Fp8Format::e4m3fn, Fp8Format::e5m2}) {
    const std::span<const std::uint8_t> in(codes.data() + 3, codes.size() - 3);
    std::vector<float> f(in.size());
    std::vector<std::uint16_t> h(in.size()), b(in.size());
    fp8_to_fp32(in, f, format);
    fp8_to_fp16(in, h, format);
    fp8_to_bf16(in, b, format);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      const float want = fp8_to_fp32(in[i], format);
      bad += float_bits(f[i]) != float_bits(want);
      // fp8 values are exact in fp16 and bf16 (NaN stays NaN).
      bad += std::isnan(want) ? !std::isnan(fp16_to_fp32(h[i])) : fp16_to_fp32(h[i]) != want;
      bad += std::isnan(want) ? !std::isnan(bf16_to_fp32(b[i])) : bf16_to_fp32(b[i]) != want;
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("bulk int8 equals the scalar quantizers", "[bulk][int8]") {
  const auto src = make_input(1003, 99);
  const std::span<const float> in(src.data() + 2, 1001);
  std::vector<std::int8_t> sym(in.size()), asym(in.size());
  std::vector<float> back_sym(in.size()), back_asym(in.size());
  const float scale = 0.37f;
  const std::int8_t zp = -17;
  CHECK(quantize_int8_symmetric(in, sym, scale) == naive_amax(in.data(), in.size()));
  CHECK(quantize_int8_asymmetric(in, asym, scale, zp) == naive_amax(in.data(), in.size()));
  dequantize_int8_symmetric(sym, back_sym, scale);
  dequantize_int8_asymmetric(asym, back_asym, scale, zp);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    bad += sym[i] != quantize_int8_symmetric(in[i], scale);
    bad += asym[i] != quantize_int8_asymmetric(in[i], scale, zp);
    bad += back_sym[i] != dequantize_int8_symmetric(sym[i], scale);
    bad += back_asym[i] != dequantize_int8_asymmetric(asym[i], scale, zp);
  }
  CHECK(bad == 0);
}

TEST_CASE("amax ignores NaN and reports Inf", "[bulk]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> v{-3.0f, nan, 2.0f, -0.0f};
  CHECK(amax(v) == 3.0f);
  const std::vector<float> all_nan{nan, -nan};
  CHECK(amax(all_nan) == 0.0f);
  CHECK(amax(std::span<const float>{}) == 0.0f);
  const std::vector<float> with_inf{1.0f, -std::numeric_limits<float>::infinity()};
  CHECK(std::isinf(amax(with_inf)));
}

TEST_CASE("bulk conversions reject spans of different sizes", "[bulk]") {
  std::vector<float> in(4);
  std::vector<std::uint8_t> out(3);
  CHECK_THROWS_AS(fp32_to_fp8(in, out, Fp8Format::e4m3fn, Saturation::finite), std::invalid_argument);
  CHECK_THROWS_AS(fp32_to_fp8_parallel(in, out, Fp8Format::e4m3fn, Saturation::finite), std::invalid_argument);
}

TEST_CASE("the multi-threaded wrapper matches the single-threaded conversion", "[bulk][parallel]") {
  CHECK(parallel_chunk_count(kParallelMinChunk * 2 - 1, 8) == 1);  // small buffers stay on one thread
  CHECK(parallel_chunk_count(kParallelMinChunk * 3, 8) == 3);
  CHECK(parallel_chunk_count(kParallelMinChunk * 100, 4) == 4);
  const std::size_t n = kParallelMinChunk * 3 + 5;  // an uneven last chunk
  auto src = make_input(n, 5);
  // Every other lane below 1e29 (NaN kept): the true amax is in the last chunk only.
  for (auto& x : src) x = std::fabs(x) > 1e29f ? 1.0f : x;
  src[n - 1] = 1e30f;  // the amax sits in the last chunk
  std::vector<std::uint16_t> h(n);
  for (std::size_t i = 0; i < n; ++i) h[i] = fp32_to_bf16(src[i]);
  std::vector<std::uint8_t> one(n), many(n);
  const float a1 = fp32_to_fp8(src, one, Fp8Format::e4m3fn, Saturation::finite);
  const float a4 = fp32_to_fp8_parallel(src, many, Fp8Format::e4m3fn, Saturation::finite, 4);
  CHECK(a1 == 1e30f);
  CHECK(a4 == a1);
  CHECK(one == many);
  std::vector<std::uint8_t> bone(n), bmany(n);
  CHECK(bf16_to_fp8(h, bone, Fp8Format::e5m2, Saturation::none) ==
        bf16_to_fp8_parallel(h, bmany, Fp8Format::e5m2, Saturation::none, 3));
  CHECK(bone == bmany);
  std::vector<float> back1(n), back4(n);
  fp8_to_fp32(one, back1, Fp8Format::e4m3fn);
  fp8_to_fp32_parallel(one, back4, Fp8Format::e4m3fn, 4);
  CHECK(std::memcmp(back1.data(), back4.data(), n * sizeof(float)) == 0);
}
