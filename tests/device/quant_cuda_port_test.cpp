// The scalar arithmetic the quant_fp8 CUDA kernels share with the host
// (plugins/quant_fp8/cuda/device_math.hpp), compiled here by the host
// compiler and compared bit for bit with the CPU reference it ports:
// recipes::current_scale / scale_for_target / mx_scale_code / e8m0_decode,
// formats' fp8 / fp16 / bf16 conversions, the amax key against
// recipes::amax, and mul_as_host against this machine's own multiply. Runs
// on the CPU; built with the CUDA path only.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "cuda/device_math.hpp"
#include "formats/fp8.hpp"
#include "formats/half.hpp"
#include "recipes/amax.hpp"
#include "recipes/e8m0.hpp"
#include "recipes/mx_scaling.hpp"
#include "recipes/scale_from_amax.hpp"

namespace dm = frugal::quant::cuda::dm;
namespace q = frugal::quant;
namespace r = frugal::quant::recipes;

namespace {

std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }
float from_bits(std::uint32_t u) { return std::bit_cast<float>(u); }

// Hand-picked amaxes: zeros, subnormals, the scale clamps' edges, the fp8
// maxima and their neighbours, huge values, Inf and NaNs of both signs.
std::vector<float> special_amaxes() {
  std::vector<float> v = {0.0f,
                          -0.0f,
                          std::numeric_limits<float>::denorm_min(),
                          from_bits(0x0000'0003u),
                          from_bits(0x007F'FFFFu),
                          std::numeric_limits<float>::min(),
                          0x1p-126f,
                          0x1p-120f,
                          0x1p-100f,
                          1e-30f,
                          1e-10f,
                          0.5f,
                          1.0f,
                          1.5f,
                          3.0f,
                          127.0f,
                          448.0f,
                          std::nextafter(448.0f, 0.0f),
                          std::nextafter(448.0f, 1e9f),
                          57344.0f,
                          std::nextafter(57344.0f, 0.0f),
                          1e10f,
                          1e30f,
                          0x1p126f,
                          0x1p127f,
                          std::numeric_limits<float>::max(),
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN(),
                          from_bits(0xFFC0'0000u),
                          from_bits(0x7F80'0001u),
                          -1.0f,
                          -448.0f};
  for (int e = -149; e <= 127; ++e) {
    const float p = std::ldexp(1.0f, e);
    v.push_back(p);
    v.push_back(std::nextafter(p, 0.0f));
    v.push_back(std::nextafter(p, 1e30f));
    v.push_back(p * 1.5f);
  }
  return v;
}

// Random positive and negative fp32 patterns (every exponent equally likely).
std::vector<float> random_floats(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = from_bits(static_cast<std::uint32_t>(rng()));
  return v;
}

const float kFp8Maxes[] = {448.0f, 57344.0f, 127.0f};

}  // namespace

TEST_CASE("current_scale port matches recipes::current_scale bit for bit", "[quant_cuda_port]") {
  std::vector<float> amaxes = special_amaxes();
  const std::vector<float> more = random_floats(1 << 20, 1);
  amaxes.insert(amaxes.end(), more.begin(), more.end());
  for (const float fmax : kFp8Maxes) {
    std::size_t mismatches = 0;
    for (const float a : amaxes) {
      const r::ScalePair want = r::current_scale(a, fmax);
      const dm::ScalePair got = dm::current_scale(a, fmax);
      if (bits(want.scale) != bits(got.scale) || bits(want.scale_inv) != bits(got.scale_inv)) {
        if (++mismatches <= 5) {
          UNSCOPED_INFO("amax bits " << std::hex << bits(a) << " fp8_max " << std::dec << fmax << ": want "
                                     << want.scale << "/" << want.scale_inv << " got " << got.scale << "/"
                                     << got.scale_inv);
        }
      }
    }
    CHECK(mismatches == 0);
  }
}

TEST_CASE("scale_for_target port matches recipes::scale_for_target, nullopt included", "[quant_cuda_port]") {
  const std::vector<float> amaxes = special_amaxes();
  for (const double target : {1.0, 4.0, 127.0, 448.0, 57344.0, 448.0 * 0x1p-3, 1e30}) {
    for (const float a : amaxes) {
      const auto want = r::scale_for_target(a, target);
      dm::ScalePair got;
      const bool have = dm::scale_for_target(a, target, &got);
      REQUIRE(have == want.has_value());
      if (have) {
        CHECK(bits(got.scale) == bits(want->scale));
        CHECK(bits(got.scale_inv) == bits(want->scale_inv));
      }
    }
  }
}

TEST_CASE("mx_scale_code port matches recipes::mx_scale_code", "[quant_cuda_port]") {
  std::vector<float> amaxes = special_amaxes();
  const std::vector<float> more = random_floats(1 << 20, 2);
  amaxes.insert(amaxes.end(), more.begin(), more.end());
  for (const float fmax : kFp8Maxes) {
    std::size_t mismatches = 0;
    for (const float a : amaxes) {
      // The reference takes magnitudes (amaxes); negative inputs are outside its domain.
      if (!std::isnan(a) && a < 0.0f) continue;
      if (r::mx_scale_code(a, fmax) != dm::mx_scale_code(a, fmax)) ++mismatches;
    }
    CHECK(mismatches == 0);
  }
}

TEST_CASE("E8M0 decode and the MX scale pair match recipes::e8m0_decode for all codes", "[quant_cuda_port]") {
  for (int c = 0; c < 256; ++c) {
    const auto code = static_cast<std::uint8_t>(c);
    CHECK(bits(dm::e8m0_decode(code)) == bits(r::e8m0_decode(code)));
    const dm::ScalePair p = dm::mx_scale_pair(code);
    CHECK(bits(p.scale_inv) == bits(r::e8m0_decode(code)));
    CHECK(bits(p.scale) == bits(r::e8m0_decode(static_cast<std::uint8_t>(254 - c))));
    if (code != 0xFF) CHECK(static_cast<double>(p.scale) * static_cast<double>(p.scale_inv) == 1.0);
  }
  for (int e = -140; e <= 140; ++e) CHECK(dm::e8m0_from_exponent(e) == r::e8m0_from_exponent(e));
}

TEST_CASE("fp8 -> fp32 port matches formats for all codes", "[quant_cuda_port]") {
  for (int c = 0; c < 256; ++c) {
    const auto code = static_cast<std::uint8_t>(c);
    CHECK(bits(dm::e4m3_to_fp32(code)) == bits(q::fp8_to_fp32<q::Fp8Format::e4m3fn>(code)));
    CHECK(bits(dm::e5m2_to_fp32(code)) == bits(q::fp8_to_fp32<q::Fp8Format::e5m2>(code)));
    CHECK(bits(dm::fp8_to_fp32(code, 0)) == bits(q::fp8_to_fp32(code, q::Fp8Format::e4m3fn)));
    CHECK(bits(dm::fp8_to_fp32(code, 1)) == bits(q::fp8_to_fp32(code, q::Fp8Format::e5m2)));
  }
}

TEST_CASE("fp16 and bf16 conversion ports match formats", "[quant_cuda_port]") {
  std::size_t mismatches = 0;
  for (std::uint32_t h = 0; h <= 0xFFFFu; ++h) {
    const auto v = static_cast<std::uint16_t>(h);
    mismatches += bits(dm::fp16_to_fp32(v)) != bits(q::fp16_to_fp32(v));
    mismatches += bits(dm::bf16_to_fp32(v)) != bits(q::bf16_to_fp32(v));
  }
  std::vector<float> xs = random_floats(1 << 22, 3);
  const std::vector<float> specials = special_amaxes();
  xs.insert(xs.end(), specials.begin(), specials.end());
  for (const float x : xs) {
    mismatches += dm::fp32_to_fp16(x) != q::fp32_to_fp16(x);
    mismatches += dm::fp32_to_bf16(x) != q::fp32_to_bf16(x);
    mismatches += dm::fp32_to_fp16(-x) != q::fp32_to_fp16(-x);
    mismatches += dm::fp32_to_bf16(-x) != q::fp32_to_bf16(-x);
  }
  CHECK(mismatches == 0);
}

TEST_CASE("amax keys: an unsigned max is recipes::amax's bits, NaN propagating", "[quant_cuda_port]") {
  std::mt19937_64 rng(4);
  const float specials[] = {0.0f,
                            -0.0f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            from_bits(0xFFFF'FFFFu),
                            from_bits(0x7F80'0001u),
                            std::numeric_limits<float>::denorm_min(),
                            -448.0f};
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<float> x(1 + rng() % 64);
    for (auto& v : x)
      v = std::ldexp(static_cast<float>(static_cast<std::int64_t>(rng() % 2001) - 1000),
                     static_cast<int>(rng() % 40) - 20);
    const int specials_in = static_cast<int>(rng() % 3);
    for (int s = 0; s < specials_in; ++s) x[rng() % x.size()] = specials[rng() % std::size(specials)];
    std::uint32_t key = 0;
    for (const float v : x) key = dm::max_u32(key, dm::amax_key(v));
    REQUIRE(key == bits(r::amax(x)));
  }
}

TEST_CASE("mul_as_host gives this host's product bits, NaNs included", "[quant_cuda_port]") {
  std::vector<float> scales = {1.0f,
                               0.5f,
                               3.0f,
                               0x1p-127f,
                               0x1p126f,
                               0.0f,
                               -0.0f,
                               std::numeric_limits<float>::infinity(),
                               std::numeric_limits<float>::quiet_NaN(),
                               from_bits(0xFFC0'0000u),
                               from_bits(0x7F80'0001u),
                               1e-30f,
                               7.25f};
  for (int c = 0; c < 256; ++c) {
    for (const int format : {0, 1}) {
      const float decoded = dm::fp8_to_fp32(static_cast<std::uint8_t>(c), format);
      for (const float s : scales) {
        // volatile: multiplied at run time by this machine, as the CPU path does.
        volatile float a = decoded;
        volatile float b = s;
        const float host = a * b;
        CHECK(bits(dm::mul_as_host(decoded, s)) == bits(host));
      }
    }
  }
}
