// The quantizer's scaling recipes (plugins/quant_fp8/algorithms/recipes): E8M0 on hand
// values and all 256 codes; amax and its NaN policy; per-tensor, per-channel,
// block and MX scales on random inputs (normal, heavy-tailed, zeros,
// subnormals, partial edge blocks) with the no-overflow and tightness
// properties checked exactly in double; delayed scaling against a
// hand-computed sequence; the state blob's round trip and every corruption;
// the loss scaler on a hand sequence.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "frugal/sdk/checksum.hpp"
#include "frugal/sdk/plugin_support.hpp"
#include "recipes/amax.hpp"
#include "recipes/current_scaling.hpp"
#include "recipes/delayed_scaling.hpp"
#include "recipes/e8m0.hpp"
#include "recipes/limits.hpp"
#include "recipes/mx_scaling.hpp"
#include "recipes/scale_from_amax.hpp"

using namespace frugal::quant::recipes;
using Matrix = frugal::sdk::MatrixView<const float>;

namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kDenormMin = std::numeric_limits<float>::denorm_min();

// ---- random matrices -------------------------------------------------------

enum class Dist { normal, heavy_tailed, with_zeros, subnormal, mixed };

const char* dist_name(Dist d) {
  switch (d) {
    case Dist::normal: return "normal";
    case Dist::heavy_tailed: return "heavy_tailed";
    case Dist::with_zeros: return "with_zeros";
    case Dist::subnormal: return "subnormal";
    case Dist::mixed: return "mixed";
  }
  return "?";
}

// rows x cols, row-major. heavy_tailed spreads magnitudes over 2^-60..2^60
// (and Cauchy tails); with_zeros zeroes whole rows and 40 % of the rest;
// subnormal is all fp32 subnormals (whole blocks of them); mixed puts each
// row in a different regime so blocks see very different amaxes.
std::vector<float> random_matrix(std::size_t rows, std::size_t cols, Dist dist, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::cauchy_distribution<float> cauchy(0.0f, 1.0f);
  std::uniform_int_distribution<int> exp(-60, 60);
  std::uniform_int_distribution<uint32_t> sub_bits(1, 0x007FFFFF);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  auto subnormal = [&] {
    const float v = std::bit_cast<float>(sub_bits(rng));
    return unit(rng) < 0.5f ? -v : v;
  };
  std::vector<float> x(rows * cols);
  for (std::size_t r = 0; r < rows; ++r) {
    const Dist row_dist = dist == Dist::mixed ? static_cast<Dist>(r % 4) : dist;
    for (std::size_t c = 0; c < cols; ++c) {
      float v = 0.0f;
      switch (row_dist) {
        case Dist::normal: v = normal(rng); break;
        case Dist::heavy_tailed: v = unit(rng) < 0.5f ? std::ldexp(normal(rng), exp(rng)) : cauchy(rng); break;
        case Dist::with_zeros: v = (r % 5 == 0 || unit(rng) < 0.4f) ? 0.0f : normal(rng) * 1000.0f; break;
        case Dist::subnormal: v = subnormal(); break;
        case Dist::mixed: break;
      }
      x[r * cols + c] = v;
    }
  }
  return x;
}

// Brute-force amax of block (br, bc) over the covered elements, in double.
double reference_block_amax(const std::vector<float>& x, std::size_t rows, std::size_t cols, BlockShape b,
                            std::size_t gr, std::size_t gc) {
  double m = 0.0;
  for (std::size_t r = gr * b.rows; r < std::min(rows, (gr + 1) * b.rows); ++r) {
    for (std::size_t c = gc * b.cols; c < std::min(cols, (gc + 1) * b.cols); ++c) {
      m = std::max(m, std::fabs(double{x[r * cols + c]}));
    }
  }
  return m;
}

// The fp32-scale properties for one block with amax a and scale s.
void check_fp32_scale(double a, float s, float si, float fp8_max) {
  REQUIRE(si == 1.0f / s);
  REQUIRE(std::isnormal(s));
  REQUIRE(std::isnormal(si));
  if (a == 0.0) {
    REQUIRE(s == 1.0f);
    return;
  }
  REQUIRE(a * double{s} <= double{fp8_max});  // exact: 24 x 24 bits
  if (s == kMaxScale) {
    // Clamped: only when the exact scale would be larger still.
    REQUIRE(a * double{kMaxScale} < double{fp8_max});
    return;
  }
  REQUIRE(s > kMinScale);
  // Tight: one fp32 ulp more of scale overflows; relative gap <= 2^-23.
  REQUIRE(a * double{std::nextafter(s, kInf)} > double{fp8_max});
  REQUIRE(double{fp8_max} - a * double{s} <= double{fp8_max} * 0x1p-23);
}

// The element-wise guarantee of a block-scaled matrix: |x| * scale <= max.
void check_no_overflow(const std::vector<float>& x, std::size_t rows, std::size_t cols, BlockShape b,
                       std::size_t grid_cols, const std::vector<float>& scale, float fp8_max) {
  std::size_t worst_r = 0;
  std::size_t worst_c = 0;
  double worst = 0.0;
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) {
      const double q = std::fabs(double{x[r * cols + c]}) * double{scale[(r / b.rows) * grid_cols + c / b.cols]};
      if (q > worst) {
        worst = q;
        worst_r = r;
        worst_c = c;
      }
    }
  }
  INFO("largest |x| * scale " << worst << " at (" << worst_r << ", " << worst_c << ")");
  REQUIRE(worst <= double{fp8_max});
}

}  // namespace

// ---- E8M0 --------------------------------------------------------------------

TEST_CASE("E8M0 encodes hand values with both roundings") {
  CHECK(e8m0_encode(1.0f, E8M0Round::up) == 127);
  CHECK(e8m0_encode(1.0f, E8M0Round::nearest) == 127);
  CHECK(e8m0_encode(1.5f, E8M0Round::up) == 128);
  CHECK(e8m0_encode(1.5f, E8M0Round::nearest) == 128);  // the midpoint goes up
  CHECK(e8m0_encode(std::nextafter(1.5f, 0.0f), E8M0Round::nearest) == 127);
  CHECK(e8m0_encode(std::nextafter(1.0f, 2.0f), E8M0Round::up) == 128);
  CHECK(e8m0_encode(std::nextafter(1.0f, 2.0f), E8M0Round::nearest) == 127);
  CHECK(e8m0_encode(0.75f, E8M0Round::up) == 127);
  CHECK(e8m0_encode(0.75f, E8M0Round::nearest) == 127);
  CHECK(e8m0_encode(0.7f, E8M0Round::nearest) == 126);
  CHECK(e8m0_encode(3.0f, E8M0Round::up) == 129);
  CHECK(e8m0_encode(3.0f, E8M0Round::nearest) == 129);
  CHECK(e8m0_encode(5.0f, E8M0Round::up) == 130);
  CHECK(e8m0_encode(5.0f, E8M0Round::nearest) == 129);
  CHECK(e8m0_encode(0x1p-127f, E8M0Round::up) == 0);
  CHECK(e8m0_encode(0x1p-126f, E8M0Round::up) == 1);
  CHECK(e8m0_encode(0x1p127f, E8M0Round::up) == 254);
  // Out of range: saturate at the top, clamp to 2^-127 at the bottom.
  CHECK(e8m0_encode(std::nextafter(0x1p127f, kInf), E8M0Round::up) == 254);
  CHECK(e8m0_encode(std::numeric_limits<float>::max(), E8M0Round::up) == 254);
  CHECK(e8m0_encode(std::numeric_limits<float>::max(), E8M0Round::nearest) == 254);
  CHECK(e8m0_encode(kInf, E8M0Round::up) == 254);
  CHECK(e8m0_encode(kDenormMin, E8M0Round::up) == 0);
  CHECK(e8m0_encode(kDenormMin, E8M0Round::nearest) == 0);
  CHECK(e8m0_encode(0x1.8p-127f, E8M0Round::nearest) == 1);  // subnormal midpoint goes up
  // Not representable: no sign, no zero, NaN.
  for (const float v : {kNan, 0.0f, -0.0f, -1.0f, -kInf, -kDenormMin}) {
    CHECK(e8m0_encode(v, E8M0Round::up) == kE8M0Nan);
    CHECK(e8m0_encode(v, E8M0Round::nearest) == kE8M0Nan);
  }
  CHECK(e8m0_from_exponent(-200) == 0);
  CHECK(e8m0_from_exponent(200) == 254);
  CHECK(e8m0_from_exponent(0) == kE8M0One);
}

TEST_CASE("E8M0 decodes all 256 codes exactly and round-trips") {
  for (int code = 0; code < 256; ++code) {
    INFO("code " << code);
    const auto c = static_cast<uint8_t>(code);
    const float v = e8m0_decode(c);
    if (code == 255) {
      REQUIRE(std::isnan(v));
      continue;
    }
    // The value: exactly 2^(code - 127), checked on the fp32 bits.
    const uint32_t expected_bits = code == 0 ? 0x00400000U : static_cast<uint32_t>(code) << 23;
    REQUIRE(std::bit_cast<uint32_t>(v) == expected_bits);
    REQUIRE(double{v} == std::ldexp(1.0, code - 127));
    REQUIRE(e8m0_exponent(c) == code - 127);
    REQUIRE(e8m0_encode(v, E8M0Round::up) == c);
    REQUIRE(e8m0_encode(v, E8M0Round::nearest) == c);
    if (code < 254) {
      // Just above a power of two: up goes to the next code, nearest stays.
      const float above = std::nextafter(v, kInf);
      REQUIRE(e8m0_encode(above, E8M0Round::up) == code + 1);
      REQUIRE(e8m0_encode(above, E8M0Round::nearest) == c);
    }
    if (code > 0) {
      // Just below: up stays, nearest stays.
      const float below = std::nextafter(v, 0.0f);
      REQUIRE(e8m0_encode(below, E8M0Round::up) == c);
      REQUIRE(e8m0_encode(below, E8M0Round::nearest) == c);
    }
  }
}

// ---- amax --------------------------------------------------------------------

TEST_CASE("amax: hand values, NaN propagates, empty is 0") {
  const std::vector<float> a{1.0f, -3.0f, 2.0f};
  CHECK(amax(a) == 3.0f);
  CHECK(amax(std::vector<float>{}) == 0.0f);
  const float neg_zero = amax(std::vector<float>{-0.0f});
  CHECK(neg_zero == 0.0f);
  CHECK_FALSE(std::signbit(neg_zero));
  CHECK(amax(std::vector<float>{1.0f, -kInf, 2.0f}) == kInf);
  // NaN wins wherever it sits, even next to an Inf.
  CHECK(std::isnan(amax(std::vector<float>{kNan, 1.0f, 2.0f})));
  CHECK(std::isnan(amax(std::vector<float>{1.0f, 5.0f, kNan})));
  CHECK(std::isnan(amax(std::vector<float>{kInf, kNan, 1.0f})));
  CHECK(std::isnan(amax(std::vector<float>{-kNan, 1.0f})));
}

TEST_CASE("amax per channel and per block, partial edge blocks") {
  // 3 x 5:
  //   1  -2   3   0   9
  //  -4   5  -6   7   0
  //   0   0   8  -1   2
  const std::vector<float> x{1, -2, 3, 0, 9, -4, 5, -6, 7, 0, 0, 0, 8, -1, 2};
  const Matrix m(x, 3, 5);
  CHECK(amax_per_channel(m, Axis::rows) == std::vector<float>{9, 7, 8});
  CHECK(amax_per_channel(m, Axis::cols) == std::vector<float>{4, 5, 8, 7, 9});
  // 2 x 2 blocks: grid 2 x 3; the last block column is 1 wide and the last
  // block row 1 tall.
  CHECK(amax_per_block(m, {2, 2}) == std::vector<float>{5, 7, 9, 0, 8, 2});
  CHECK(amax_per_block(m, {1, 3}) == std::vector<float>{3, 9, 6, 7, 8, 2});
  CHECK(amax_per_block(m, {128, 128}) == std::vector<float>{9});
  CHECK_THROWS_AS(amax_per_block(m, {0, 2}), std::invalid_argument);
  CHECK_THROWS_AS(Matrix(x, 4, 5), frugal::sdk::PluginError);
  CHECK_THROWS_AS(Matrix(x, std::int64_t{1} << 62, 8), frugal::sdk::PluginError);
  // The same matrix with two padding columns per row, which must not count.
  const std::vector<float> padded{1, -2, 3, 0, 9, 99, 99, -4, 5, -6, 7, 0, 99, 99, 0, 0, 8, -1, 2};
  const Matrix strided(padded.data(), 3, 5, 7);
  CHECK(amax_per_channel(strided, Axis::rows) == std::vector<float>{9, 7, 8});
  CHECK(amax_per_channel(strided, Axis::cols) == std::vector<float>{4, 5, 8, 7, 9});
  CHECK(amax_per_block(strided, {2, 2}) == std::vector<float>{5, 7, 9, 0, 8, 2});
  const std::vector<float> with_nan{1, kNan, 3, 4};
  const auto per_col = amax_per_channel(Matrix(with_nan, 2, 2), Axis::cols);
  CHECK(per_col[0] == 3.0f);
  CHECK(std::isnan(per_col[1]));
  // An empty dimension: rows with no columns have amax 0.
  CHECK(amax_per_channel(Matrix(std::span<const float>{}, 2, 0), Axis::rows) == std::vector<float>{0, 0});
}

// ---- current scaling ---------------------------------------------------------

TEST_CASE("current scaling: hand values, zero and non-finite amax") {
  const auto t = current_tensor_scale(std::vector<float>{-2.0f, 1.0f}, kE4M3Max);
  CHECK(t.amax == 2.0f);
  CHECK(t.scale == 224.0f);
  CHECK(t.scale_inv == 1.0f / 224.0f);
  CHECK(current_scale(448.0f, kE4M3Max).scale == 1.0f);
  CHECK(current_scale(57344.0f, kE5M2Max).scale == 1.0f);
  CHECK(current_scale(1.0f, kInt8Max).scale == 127.0f);
  // 448 / 3 is not a float: the scale is the float below, never above.
  const float s3 = current_scale(3.0f, kE4M3Max).scale;
  CHECK(3.0 * double{s3} <= 448.0);
  CHECK(3.0 * double{std::nextafter(s3, kInf)} > 448.0);
  // amax 0: scale 1. Non-finite: scale 1, amax reported as is.
  const auto zero = current_tensor_scale(std::vector<float>{0.0f, -0.0f}, kE4M3Max);
  CHECK(zero.amax == 0.0f);
  CHECK(zero.scale == 1.0f);
  CHECK(zero.scale_inv == 1.0f);
  const auto nan = current_tensor_scale(std::vector<float>{1.0f, kNan}, kE4M3Max);
  CHECK(std::isnan(nan.amax));
  CHECK(nan.scale == 1.0f);
  CHECK(current_tensor_scale(std::vector<float>{kInf}, kE4M3Max).scale == 1.0f);
  // Clamping: a tiny amax hits the 2^126 ceiling, a huge one never the floor.
  CHECK(current_scale(kDenormMin, kE4M3Max).scale == kMaxScale);
  CHECK(current_scale(kDenormMin, kE4M3Max).scale_inv == 0x1p-126f);
  const auto big = current_scale(std::numeric_limits<float>::max(), kInt8Max);
  CHECK(big.scale > kMinScale);
  CHECK(std::isnormal(big.scale_inv));
  CHECK(double{std::numeric_limits<float>::max()} * double{big.scale} <= 127.0);
  // fp8_max must be finite and >= 4.
  CHECK_THROWS_AS(current_tensor_scale(std::vector<float>{1.0f}, 2.0f), std::invalid_argument);
  CHECK_THROWS_AS(current_tensor_scale(std::vector<float>{1.0f}, kNan), std::invalid_argument);
  CHECK_THROWS_AS(current_tensor_scale(std::vector<float>{1.0f}, kInf), std::invalid_argument);
}

TEST_CASE("per-tensor, per-channel and INT8 scales on random inputs: no overflow, tight") {
  const std::size_t rows = 37;
  const std::size_t cols = 61;
  for (const Dist dist : {Dist::normal, Dist::heavy_tailed, Dist::with_zeros, Dist::subnormal, Dist::mixed}) {
    for (const float fp8_max : {kE4M3Max, kE5M2Max, kInt8Max}) {
      INFO(dist_name(dist) << ", max " << fp8_max);
      const auto x = random_matrix(rows, cols, dist, 11U + static_cast<uint32_t>(dist));
      const Matrix m(x, rows, cols);

      const auto t = current_tensor_scale(x, fp8_max);
      REQUIRE(double{t.amax} == reference_block_amax(x, rows, cols, {rows, cols}, 0, 0));
      check_fp32_scale(t.amax, t.scale, t.scale_inv, fp8_max);
      check_no_overflow(x, rows, cols, {rows, cols}, 1, {t.scale}, fp8_max);

      const auto per_row = per_channel_scales(m, Axis::rows, fp8_max);
      REQUIRE(per_row.scale.size() == rows);
      for (std::size_t r = 0; r < rows; ++r) {
        REQUIRE(double{per_row.amax[r]} == reference_block_amax(x, rows, cols, {1, cols}, r, 0));
        check_fp32_scale(per_row.amax[r], per_row.scale[r], per_row.scale_inv[r], fp8_max);
      }
      check_no_overflow(x, rows, cols, {1, cols}, 1, per_row.scale, fp8_max);

      const auto per_col = per_channel_scales(m, Axis::cols, fp8_max);
      REQUIRE(per_col.scale.size() == cols);
      for (std::size_t c = 0; c < cols; ++c) {
        REQUIRE(double{per_col.amax[c]} == reference_block_amax(x, rows, cols, {rows, 1}, 0, c));
        check_fp32_scale(per_col.amax[c], per_col.scale[c], per_col.scale_inv[c], fp8_max);
      }
      check_no_overflow(x, rows, cols, {rows, 1}, cols, per_col.scale, fp8_max);
    }
  }
  // INT8 per-channel is the same with 127.
  const auto x = random_matrix(rows, cols, Dist::normal, 5);
  const auto i8 = int8_channel_scales(Matrix(x, rows, cols), Axis::cols);
  const auto ref = per_channel_scales(Matrix(x, rows, cols), Axis::cols, kInt8Max);
  REQUIRE(i8.scale == ref.scale);
  check_no_overflow(x, rows, cols, {rows, 1}, cols, i8.scale, kInt8Max);
}

TEST_CASE("block scales (1x128, 128x128) on random inputs: no overflow, tight, partial edges") {
  // 300 x 200: neither dimension a multiple of 128, so the last block row
  // and column are partial (44 rows, 72 columns).
  const std::size_t rows = 300;
  const std::size_t cols = 200;
  for (const Dist dist : {Dist::normal, Dist::heavy_tailed, Dist::with_zeros, Dist::subnormal, Dist::mixed}) {
    const auto x = random_matrix(rows, cols, dist, 100U + static_cast<uint32_t>(dist));
    const Matrix m(x, rows, cols);
    for (const BlockShape b : {kActivationBlock, kWeightBlock}) {
      for (const float fp8_max : {kE4M3Max, kE5M2Max}) {
        INFO(dist_name(dist) << ", block " << b.rows << "x" << b.cols << ", max " << fp8_max);
        const auto s = block_scales(m, b, fp8_max);
        REQUIRE(s.grid_rows == (rows + b.rows - 1) / b.rows);
        REQUIRE(s.grid_cols == 2);
        REQUIRE(s.scales.scale.size() == s.grid_rows * s.grid_cols);
        for (std::size_t gr = 0; gr < s.grid_rows; ++gr) {
          for (std::size_t gc = 0; gc < s.grid_cols; ++gc) {
            const std::size_t i = gr * s.grid_cols + gc;
            REQUIRE(double{s.scales.amax[i]} == reference_block_amax(x, rows, cols, b, gr, gc));
            check_fp32_scale(s.scales.amax[i], s.scales.scale[i], s.scales.scale_inv[i], fp8_max);
          }
        }
        check_no_overflow(x, rows, cols, b, s.grid_cols, s.scales.scale, fp8_max);
      }
    }
  }
}

// ---- MX ----------------------------------------------------------------------

TEST_CASE("MX scale codes: hand values") {
  CHECK(mx_scale_code(448.0f, kE4M3Max) == 127);
  CHECK(mx_scale_code(std::nextafter(448.0f, kInf), kE4M3Max) == 128);
  CHECK(mx_scale_code(224.0f, kE4M3Max) == 126);
  CHECK(mx_scale_code(1.0f, kE4M3Max) == 119);   // 1 / 2^-8 = 256 <= 448; 1 / 2^-9 = 512 > 448
  CHECK(mx_scale_code(1.75f, kE4M3Max) == 119);  // 1.75 * 256 = 448 exactly
  CHECK(mx_scale_code(std::nextafter(1.75f, kInf), kE4M3Max) == 120);
  CHECK(mx_scale_code(57344.0f, kE5M2Max) == 127);
  CHECK(mx_scale_code(0.0f, kE4M3Max) == kE8M0One);
  CHECK(mx_scale_code(kNan, kE4M3Max) == kE8M0Nan);
  CHECK(mx_scale_code(kInf, kE4M3Max) == kE8M0Nan);
  CHECK(mx_scale_code(kDenormMin, kE4M3Max) == 0);                           // clamped at 2^-127
  CHECK(mx_scale_code(std::numeric_limits<float>::max(), kE4M3Max) == 247);  // FLT_MAX / 448 ~ 2^119.2: e = 120
  CHECK_THROWS_AS(mx_scale_code(1.0f, 0.0f), std::invalid_argument);
}

TEST_CASE("MX scales (1x32, E8M0) on random inputs: no overflow, next smaller scale overflows") {
  // 33 rows x 100 columns: the fourth block of each row holds 4 elements.
  const std::size_t rows = 33;
  const std::size_t cols = 100;
  for (const Dist dist : {Dist::normal, Dist::heavy_tailed, Dist::with_zeros, Dist::subnormal, Dist::mixed}) {
    for (const float fp8_max : {kE4M3Max, kE5M2Max}) {
      INFO(dist_name(dist) << ", max " << fp8_max);
      const auto x = random_matrix(rows, cols, dist, 200U + static_cast<uint32_t>(dist));
      const auto s = mx_scales(Matrix(x, rows, cols), fp8_max);
      REQUIRE(s.grid_rows == rows);
      REQUIRE(s.grid_cols == 4);
      REQUIRE(s.e8m0.size() == rows * 4);
      std::size_t zero_blocks = 0;
      for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t gc = 0; gc < s.grid_cols; ++gc) {
          const std::size_t i = r * s.grid_cols + gc;
          const double a = reference_block_amax(x, rows, cols, kMxBlock, r, gc);
          REQUIRE(double{s.amax[i]} == a);
          const uint8_t code = s.e8m0[i];
          REQUIRE(code != kE8M0Nan);
          if (a == 0.0) {
            REQUIRE(code == kE8M0One);
            ++zero_blocks;
            continue;
          }
          const int e = e8m0_exponent(code);
          // Every element of the block: |x| / 2^e <= max (exact in double).
          for (std::size_t c = gc * 32; c < std::min(cols, gc * 32 + 32); ++c) {
            REQUIRE(std::ldexp(std::fabs(double{x[r * cols + c]}), -e) <= double{fp8_max});
          }
          if (code > 0) {
            REQUIRE(std::ldexp(a, -(e - 1)) > double{fp8_max});  // one power of two less overflows
          } else {
            REQUIRE(a <= std::ldexp(double{fp8_max}, -127));  // clamped only when unavoidable
          }
        }
      }
      if (dist == Dist::with_zeros) REQUIRE(zero_blocks >= 7 * 4);  // rows 0, 5, ..., 30 are zero
    }
  }
  // A block with NaN or Inf gets the NaN scale; its neighbours do not.
  std::vector<float> x(64, 1.0f);
  x[3] = kNan;
  x[40] = -kInf;
  const auto s = mx_scales(Matrix(x, 2, 32), kE4M3Max);
  CHECK(s.e8m0 == std::vector<uint8_t>{kE8M0Nan, kE8M0Nan});
  x[40] = 1.0f;
  CHECK(mx_scales(Matrix(x, 2, 32), kE4M3Max).e8m0 == std::vector<uint8_t>{kE8M0Nan, 119});
}

// ---- delayed scaling ---------------------------------------------------------

namespace {

struct Step {
  float amax;
  bool recomputed;
  float scale;
  std::vector<float> history;  // most recent first
};

void run_sequence(DelayedScaling& d, const std::vector<Step>& steps) {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    INFO("step " << i << ", amax " << steps[i].amax);
    REQUIRE(d.update(steps[i].amax) == steps[i].recomputed);
    REQUIRE(d.scale() == steps[i].scale);
    REQUIRE(d.scale_inv() == 1.0f / steps[i].scale);
    REQUIRE(d.history() == steps[i].history);
  }
}

}  // namespace

TEST_CASE("delayed scaling, max reduction: hand-computed sequence") {
  DelayedScaling d({.history = 3, .reduction = AmaxReduction::max, .margin = 0, .fp8_max = kE4M3Max});
  REQUIRE(d.scale() == 1.0f);
  REQUIRE(d.scale_inv() == 1.0f);
  REQUIRE(d.history() == std::vector<float>{0, 0, 0});
  run_sequence(d, {
                      {0.0f, false, 1.0f, {0, 0, 0}},      // nothing measured: keep the initial 1
                      {2.0f, true, 224.0f, {2, 0, 0}},     // 448 / 2
                      {4.0f, true, 112.0f, {4, 2, 0}},     // 448 / 4
                      {1.0f, true, 112.0f, {1, 4, 2}},     // max is still 4
                      {kNan, false, 112.0f, {0, 1, 4}},    // rolls, records 0, keeps the scale
                      {kInf, false, 112.0f, {0, 0, 1}},    // the 4 drops out, scale still kept
                      {0.5f, true, 896.0f, {0.5f, 0, 0}},  // 448 / 0.5
                      {0.0f, true, 896.0f, {0, 0.5f, 0}},  // zero amax, history max 0.5
                      {0.0f, true, 896.0f, {0, 0, 0.5f}},
                      {0.0f, false, 896.0f, {0, 0, 0}},   // history all 0: keep
                      {-0.0f, false, 896.0f, {0, 0, 0}},  // -0 is 0
                  });
  CHECK(d.steps() == 11);
  CHECK(d.nonfinite_steps() == 2);
  CHECK_FALSE(std::signbit(d.history()[0]));
  CHECK_THROWS_AS(d.update(-1.0f), std::invalid_argument);
  CHECK(d.steps() == 11);  // the rejected call changed nothing
}

TEST_CASE("delayed scaling, most_recent reduction: hand-computed sequence") {
  DelayedScaling d({.history = 3, .reduction = AmaxReduction::most_recent, .margin = 0, .fp8_max = kE4M3Max});
  run_sequence(d, {
                      {0.0f, false, 1.0f, {0, 0, 0}},
                      {2.0f, true, 224.0f, {2, 0, 0}},
                      {4.0f, true, 112.0f, {4, 2, 0}},
                      {1.0f, true, 448.0f, {1, 4, 2}},  // only the newest counts
                      {kNan, false, 448.0f, {0, 1, 4}},
                      {-kNan, false, 448.0f, {0, 0, 1}},
                      {kInf, false, 448.0f, {0, 0, 0}},
                      {0.5f, true, 896.0f, {0.5f, 0, 0}},
                      {0.0f, false, 896.0f, {0, 0.5f, 0}},  // zero amax keeps the scale
                  });
  CHECK(d.nonfinite_steps() == 3);
}

TEST_CASE("delayed scaling: margin, history 1, E5M2, inexact quotients") {
  DelayedScaling m1({.history = 1, .reduction = AmaxReduction::max, .margin = 1, .fp8_max = kE4M3Max});
  REQUIRE(m1.update(2.0f));
  CHECK(m1.scale() == 112.0f);  // 448 * 2^-1 / 2
  REQUIRE(m1.update(8.0f));
  CHECK(m1.scale() == 28.0f);  // history 1: the 2 is gone
  CHECK(m1.history() == std::vector<float>{8.0f});

  DelayedScaling neg({.history = 2, .reduction = AmaxReduction::max, .margin = -2, .fp8_max = kE4M3Max});
  REQUIRE(neg.update(448.0f));
  CHECK(neg.scale() == 4.0f);  // 448 * 4 / 448

  DelayedScaling e5({.history = 4, .reduction = AmaxReduction::max, .margin = 0, .fp8_max = kE5M2Max});
  REQUIRE(e5.update(57344.0f));
  CHECK(e5.scale() == 1.0f);

  // 112 / 3 is not a float: the scale is the largest float at or below it.
  DelayedScaling m2({.history = 2, .reduction = AmaxReduction::max, .margin = 2, .fp8_max = kE4M3Max});
  REQUIRE(m2.update(3.0f));
  CHECK(3.0 * double{m2.scale()} <= 112.0);
  CHECK(3.0 * double{std::nextafter(m2.scale(), kInf)} > 112.0);
  CHECK(m2.scale_inv() == 1.0f / m2.scale());

  // Invalid configurations.
  using C = DelayedScalingConfig;
  CHECK_THROWS_AS(DelayedScaling(C{.history = 0}), std::invalid_argument);
  CHECK_THROWS_AS(DelayedScaling(C{.history = kMaxHistory + 1}), std::invalid_argument);
  CHECK_THROWS_AS(DelayedScaling(C{.history = 4, .margin = 17}), std::invalid_argument);
  CHECK_THROWS_AS(DelayedScaling(C{.history = 4, .margin = -17}), std::invalid_argument);
  CHECK_THROWS_AS(DelayedScaling(C{.history = 4, .fp8_max = 0.0f}), std::invalid_argument);
  CHECK_THROWS_AS(DelayedScaling(C{.history = 4, .fp8_max = kNan}), std::invalid_argument);
  CHECK_THROWS_AS(DelayedScaling(C{.history = 4, .reduction = static_cast<AmaxReduction>(7)}), std::invalid_argument);
  CHECK_NOTHROW(DelayedScaling(C{.history = kMaxHistory}));
}

// ---- delayed state blob --------------------------------------------------------

namespace {

// A state with every field away from its default: H = 4, most_recent,
// margin -3, E5M2, the ring wrapped around, one non-finite step.
DelayedScaling sample_state() {
  DelayedScaling d({.history = 4, .reduction = AmaxReduction::most_recent, .margin = -3, .fp8_max = kE5M2Max});
  for (const float a : {3.0f, 100.0f, kInf, 0.25f, 7.5f, 1e-3f}) (void)d.update(a);
  return d;
}

void put_u32(std::vector<std::byte>& b, std::size_t at, uint32_t v) {
  for (std::size_t i = 0; i < 4; ++i) b[at + i] = static_cast<std::byte>(v >> (8 * i));
}
void put_u64(std::vector<std::byte>& b, std::size_t at, uint64_t v) {
  for (std::size_t i = 0; i < 8; ++i) b[at + i] = static_cast<std::byte>(v >> (8 * i));
}
void put_f32(std::vector<std::byte>& b, std::size_t at, float v) { put_u32(b, at, std::bit_cast<uint32_t>(v)); }
void put_i64(std::vector<std::byte>& b, std::size_t at, int64_t v) { put_u64(b, at, static_cast<uint64_t>(v)); }
// Re-seals a hand-edited blob so the field checks, not the checksum, catch it.
void reseal(std::vector<std::byte>& b) {
  put_u64(b, b.size() - 8, frugal::sdk::xxh3(std::span(b).first(b.size() - 8)));
}

std::string import_error(const std::vector<std::byte>& blob) {
  try {
    (void)DelayedScaling::import_state(blob);
  } catch (const frugal::sdk::PluginError& e) {
    return e.what();
  }
  return "(accepted)";
}

// Offsets of the version 2 fields (delayed_state.cpp).
constexpr std::size_t kHistoryAt = 8, kReductionAt = 16, kMarginAt = 17, kFp8MaxAt = 25, kScaleAt = 29,
                      kScaleInvAt = 33, kPositionAt = 37, kStepsAt = 45, kNonFiniteAt = 53, kRingAt = 61;

}  // namespace

TEST_CASE("delayed state: export/import round trip, explicit little-endian layout") {
  const DelayedScaling d = sample_state();
  const auto blob = d.export_state();
  REQUIRE(blob.size() == kRingAt + 4 * 4 + 8);
  // Layout spot checks, independent of the host's byte order.
  CHECK(blob[0] == std::byte{'F'});
  CHECK(blob[3] == std::byte{'S'});
  CHECK(blob[4] == std::byte{2});  // version 2, little-endian
  CHECK(blob[5] == std::byte{0});
  CHECK(blob[kHistoryAt] == std::byte{4});    // H
  CHECK(blob[kReductionAt] == std::byte{1});  // most_recent
  CHECK(blob[kMarginAt] == std::byte{0xFD});  // margin -3, two's complement LE
  CHECK(blob[kMarginAt + 7] == std::byte{0xFF});
  CHECK(blob[kStepsAt] == std::byte{6});      // steps
  CHECK(blob[kNonFiniteAt] == std::byte{1});  // non-finite steps

  DelayedScaling back = DelayedScaling::import_state(blob);
  REQUIRE(back == d);
  CHECK(back.scale() == d.scale());
  CHECK(back.history() == d.history());
  CHECK(back.history() == std::vector<float>{1e-3f, 7.5f, 0.25f, 0.0f});
  CHECK(back.export_state() == blob);
  // The restored state carries on exactly as the original.
  DelayedScaling orig = d;
  for (const float a : {2.0f, kNan, 0.0f, 9.0f}) {
    REQUIRE(back.update(a) == orig.update(a));
    REQUIRE(back == orig);
  }
  // A fresh state round-trips too.
  const DelayedScaling fresh({.history = 1});
  CHECK(DelayedScaling::import_state(fresh.export_state()) == fresh);
}

TEST_CASE("delayed state: every corruption is rejected with a message naming it") {
  const auto good = sample_state().export_state();
  auto edited = [&](auto edit) {
    auto b = good;
    edit(b);
    return import_error(b);
  };
  using B = std::vector<std::byte>&;
  using Catch::Matchers::Contains;

  // Every single-bit flip anywhere in the blob.
  for (std::size_t bit = 0; bit < good.size() * 8; ++bit) {
    auto b = good;
    b[bit / 8] ^= static_cast<std::byte>(1U << (bit % 8));
    INFO("bit " << bit);
    REQUIRE_THROWS_AS(DelayedScaling::import_state(b), frugal::sdk::PluginError);
  }
  // Every truncation, and trailing bytes.
  for (std::size_t n = 0; n < good.size(); ++n) {
    INFO("length " << n);
    REQUIRE_THROWS_AS(DelayedScaling::import_state(std::span(good).first(n)), frugal::sdk::PluginError);
  }
  CHECK_THAT(import_error(std::vector<std::byte>(good.begin(), good.begin() + 5)), Contains("truncated"));
  CHECK_THAT(import_error(std::vector<std::byte>(good.begin(), good.begin() + 20)), Contains("checksum"));
  auto longer = good;
  longer.push_back(std::byte{0});
  CHECK_THAT(import_error(longer), Contains("checksum"));
  auto extended = good;  // a byte more before the checksum, re-sealed
  extended.insert(extended.end() - 8, std::byte{0});
  reseal(extended);
  CHECK_THAT(import_error(extended), Contains("1 unread bytes after the last field"));

  CHECK_THAT(edited([](B b) { b[1] = std::byte{'X'}; }), Contains("magic 'FXDS' is not 'FQDS'"));
  CHECK_THAT(edited([](B b) {
               put_u32(b, 4, 3);
               reseal(b);
             }),
             Contains("format version 3, this build reads version 2"));
  CHECK_THAT(edited([](B b) { put_u32(b, 4, 1); }), Contains("format version 1"));
  CHECK_THAT(edited([](B b) {
               put_u64(b, kHistoryAt, 0);
               reseal(b);
             }),
             Contains("field 'history' is 0"));
  CHECK_THAT(edited([](B b) {
               put_u64(b, kHistoryAt, 1U << 20);
               reseal(b);
             }),
             Contains("field 'history' is 1048576"));
  CHECK_THAT(edited([](B b) {
               put_u64(b, kHistoryAt, 5);
               reseal(b);
             }),
             Contains("truncated at field 'history entry'"));
  CHECK_THAT(edited([](B b) { b[kRingAt] ^= std::byte{0x10}; }), Contains("checksum"));
  CHECK_THAT(edited([](B b) { b[b.size() - 1] ^= std::byte{0x01}; }), Contains("checksum"));
  CHECK_THAT(edited([](B b) {
               b[kReductionAt] = std::byte{2};
               reseal(b);
             }),
             Contains("field 'reduction' is 2"));
  CHECK_THAT(edited([](B b) {
               put_i64(b, kMarginAt, 17);
               reseal(b);
             }),
             Contains("field 'margin' is 17; it must be in [-16, 16]"));
  CHECK_THAT(edited([](B b) {
               put_f32(b, kFp8MaxAt, kNan);
               reseal(b);
             }),
             Contains("field 'fp8_max' is nan"));
  CHECK_THAT(edited([](B b) {
               put_f32(b, kFp8MaxAt, 1.0f);
               reseal(b);
             }),
             Contains("field 'fp8_max' is 1; it must be a finite number >= 4"));
  CHECK_THAT(edited([](B b) {
               put_f32(b, kScaleAt, 0.0f);
               reseal(b);
             }),
             Contains("field 'scale' is 0"));
  CHECK_THAT(edited([](B b) {
               put_f32(b, kScaleAt, kInf);
               reseal(b);
             }),
             Contains("field 'scale' is inf"));
  CHECK_THAT(edited([](B b) {
               put_f32(b, kScaleAt, 0x1p127f);
               reseal(b);
             }),
             Contains("it must be in [2^-126, 2^126]"));
  CHECK_THAT(edited([](B b) {
               put_f32(b, kScaleInvAt, 1.0f);
               reseal(b);
             }),
             Contains("field 'scale_inv' is 1, not 1 / scale"));
  CHECK_THAT(edited([](B b) {
               put_u64(b, kPositionAt, 4);
               reseal(b);
             }),
             Contains("field 'position' is 4; it must be in [0, 3]"));
  CHECK_THAT(edited([](B b) {
               put_u64(b, kNonFiniteAt, 7);
               reseal(b);
             }),
             Contains("non-finite steps 7 exceed steps 6"));
  for (const float bad : {kNan, kInf, -1.0f, -0.0f}) {
    INFO("history value " << bad);
    CHECK_THAT(edited([&](B b) {
                 put_f32(b, kRingAt + 8, bad);
                 reseal(b);
               }),
               Contains("history entry 2"));
  }
  // Codes: another strategy's blob or another version is the caller's
  // mistake, damage is corruption.
  try {
    auto b = good;
    b[0] = std::byte{'X'};
    (void)DelayedScaling::import_state(b);
    FAIL("accepted another magic");
  } catch (const frugal::sdk::PluginError& e) {
    CHECK(e.code() == FRUGAL_ERR_INVALID_ARGUMENT);
  }
  try {
    auto b = good;
    b[kRingAt] ^= std::byte{1};
    (void)DelayedScaling::import_state(b);
    FAIL("accepted a damaged blob");
  } catch (const frugal::sdk::PluginError& e) {
    CHECK(e.code() == FRUGAL_ERR_DATA_CORRUPTED);
  }
  // Each of those edits, re-sealed or not, left the good blob importable.
  CHECK(import_error(good) == "(accepted)");
}
