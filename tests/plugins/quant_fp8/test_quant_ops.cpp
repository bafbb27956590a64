// The CPU quantizer operations (plugins/quant_fp8/algorithms/ops) on fresh random
// inputs: every recipe x format x input dtype, with partial edge blocks and
// padded rows. Scale grids must equal the recipes' own functions bit for
// bit, no block-scaled element may overflow, and the round trip must stay
// within half an ulp of the element format at the block's scale. fake,
// output_t, in-place fake and the thread count are checked against the
// plain results; the delayed recipe against the scalar conversion of
// x * fixed_scale.
#include <catch2/catch.hpp>

#include "test_seed.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "formats/fp8.hpp"
#include "formats/int8.hpp"
#include "ops/chunks.hpp"
#include "ops/cpu_ops.hpp"
#include "quant_ops_support.hpp"
#include "recipes/amax.hpp"
#include "recipes/current_scaling.hpp"
#include "recipes/e8m0.hpp"
#include "recipes/limits.hpp"
#include "recipes/mx_scaling.hpp"

using namespace quant_ops_test;
namespace recipes = frugal::quant::recipes;
using frugal::quant::Fp8Format;
using frugal::quant::Saturation;
using ops::ElementFormat;
using ops::Recipe;

namespace {

constexpr std::int32_t kInputDtypes[] = {FRUGAL_DTYPE_FLOAT32, FRUGAL_DTYPE_FLOAT16, FRUGAL_DTYPE_BFLOAT16};

// Every (recipe, format) the quantizer allows: fp8 with every recipe, INT8
// (symmetric and asymmetric) with the current and per-channel recipes.
struct Combo {
  RecipeCase recipe;
  ElementFormat format;
};

std::vector<Combo> all_combos() {
  std::vector<Combo> out;
  for (const RecipeCase& rc : kScaledRecipes) {
    for (const ElementFormat f :
         {ElementFormat::e4m3, ElementFormat::e5m2, ElementFormat::int8, ElementFormat::int8_asym}) {
      const bool int8_ok = rc.recipe == Recipe::current || rc.recipe == Recipe::per_channel;
      if (is_fp8(f) || int8_ok) out.push_back({rc, f});
    }
  }
  return out;
}

std::uint32_t fresh_seed() { return frugal_test::test_seed32(); }

float format_max(ElementFormat f) {
  switch (f) {
    case ElementFormat::e4m3: return recipes::kE4M3Max;
    case ElementFormat::e5m2: return recipes::kE5M2Max;
    default: return recipes::kInt8Max;
  }
}

// A quantize call's outputs, in host buffers.
struct Quantized {
  HostMatrix codes;
  HostMatrix codes_t;  // only when asked for
  std::int64_t grid_rows = 0, grid_cols = 0;
  std::vector<float> scale, scale_inv;  // scale_inv: fp32 recipes
  std::vector<std::uint8_t> e8m0;       // scale_inv of mx
  std::vector<std::int8_t> zero_point;  // int8_asym
  float amax = 0.0f, returned_amax = 0.0f;
  std::vector<float> scale_t, scale_inv_t;  // output_t's copies
  float amax_t = 0.0f;

  std::size_t block_of(std::int64_t r, std::int64_t c, std::int64_t br, std::int64_t bc) const {
    return static_cast<std::size_t>((r / br) * grid_cols + c / bc);
  }
};

struct QuantizeRequest {
  RecipeCase recipe;
  ElementFormat format = ElementFormat::e4m3;
  bool saturate = true;
  unsigned threads = 0;
  HostMatrix* fake = nullptr;
  bool transposed = false;
  float fixed_scale = 1.0f, fixed_scale_inv = 1.0f;  // delayed
};

Quantized quantize(HostMatrix& in, const QuantizeRequest& q) {
  Quantized out;
  const std::int64_t br = q.recipe.resolved_rows(in.rows), bc = q.recipe.resolved_cols(in.cols);
  out.grid_rows = (in.rows + br - 1) / br;
  out.grid_cols = (in.cols + bc - 1) / bc;
  const auto n = static_cast<std::size_t>(out.grid_rows * out.grid_cols);
  out.codes = HostMatrix(in.rows, in.cols, code_dtype(q.format), 3);
  out.scale.assign(n, -1.0f);
  out.scale_inv.assign(n, -1.0f);
  out.e8m0.assign(n, 0);
  out.zero_point.assign(n, 99);
  ops::QuantizeOp op;
  op.input = in.view();
  op.output = out.codes.view();
  op.format = q.format;
  op.saturate = q.saturate;
  op.recipe = q.recipe.recipe;
  op.block_rows = br;
  op.block_cols = bc;
  op.fixed_scale = q.fixed_scale;
  op.fixed_scale_inv = q.fixed_scale_inv;
  op.threads = q.threads;
  const bool mx = q.recipe.recipe == Recipe::mx;
  op.scales.scale_inv = mx ? static_cast<void*>(out.e8m0.data()) : out.scale_inv.data();
  op.scales.scale = mx ? nullptr : out.scale.data();
  op.scales.zero_point = q.format == ElementFormat::int8_asym ? out.zero_point.data() : nullptr;
  op.scales.amax = &out.amax;
  ops::Matrix fake_view;
  if (q.fake != nullptr) {
    fake_view = q.fake->view();
    op.fake = &fake_view;
  }
  ops::Matrix t_view;
  if (q.transposed) {
    out.codes_t = HostMatrix(in.cols, in.rows, code_dtype(q.format), 5);
    t_view = out.codes_t.view();
    op.output_t = &t_view;
    out.scale_t.assign(1, -1.0f);
    out.scale_inv_t.assign(1, -1.0f);
    op.scales_t.scale = out.scale_t.data();
    op.scales_t.scale_inv = out.scale_inv_t.data();
    op.scales_t.amax = &out.amax_t;
  }
  out.returned_amax = ops::quantize_cpu(op);
  return out;
}

// dequantize_cpu of q into a fresh matrix of `dtype`.
HostMatrix dequantize(const Quantized& q, const RecipeCase& rc, ElementFormat f, std::int32_t dtype,
                      unsigned threads = 0) {
  HostMatrix out(q.codes.rows, q.codes.cols, dtype, 2);
  ops::DequantizeOp op;
  HostMatrix codes = q.codes;  // the op's input view is non-const
  op.input = codes.view();
  op.output = out.view();
  op.format = f;
  op.recipe = rc.recipe;
  op.block_rows = rc.resolved_rows(q.codes.rows);
  op.block_cols = rc.resolved_cols(q.codes.cols);
  op.scale_inv = rc.recipe == Recipe::mx ? static_cast<const void*>(q.e8m0.data()) : q.scale_inv.data();
  op.zero_point = f == ElementFormat::int8_asym ? q.zero_point.data() : nullptr;
  op.threads = threads;
  ops::dequantize_cpu(op);
  return out;
}

// The scales the recipes' own functions give for this input.
struct Expected {
  std::vector<float> scale, scale_inv, amax;
  std::vector<std::uint8_t> e8m0;
  std::vector<std::int8_t> zero_point;
};

Expected expected_scales(const HostMatrix& in, const RecipeCase& rc, ElementFormat f) {
  const std::vector<float> x = in.compact();
  const auto rows = static_cast<std::size_t>(in.rows), cols = static_cast<std::size_t>(in.cols);
  const frugal::sdk::MatrixView<const float> view(x, in.rows, in.cols);
  const float fmax = format_max(f);
  Expected e;
  const recipes::BlockShape shape{static_cast<std::size_t>(rc.resolved_rows(in.rows)),
                                  static_cast<std::size_t>(rc.resolved_cols(in.cols))};
  if (f == ElementFormat::int8_asym) {
    // No recipe function for the asymmetric scales: their definition is
    // int8_asymmetric_scale over each block's range, 0 included, NaN ignored.
    e.amax = recipes::amax_per_block(view, shape);
    const std::size_t grid_cols = recipes::block_count(cols, shape.cols);
    std::vector<float> lo(e.amax.size(), 0.0f), hi(e.amax.size(), 0.0f);
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t c = 0; c < cols; ++c) {
        const std::size_t b = (r / shape.rows) * grid_cols + c / shape.cols;
        lo[b] = std::fmin(lo[b], x[r * cols + c]);
        hi[b] = std::fmax(hi[b], x[r * cols + c]);
      }
    }
    for (std::size_t b = 0; b < lo.size(); ++b) {
      const ops::Int8AsymmetricScale s = ops::int8_asymmetric_scale(lo[b], hi[b]);
      e.scale.push_back(s.scale);
      e.scale_inv.push_back(s.scale_inv);
      e.zero_point.push_back(s.zero_point);
    }
    return e;
  }
  recipes::ScaleSet set;
  switch (rc.recipe) {
    case Recipe::current: {
      const recipes::TensorScale t = recipes::current_tensor_scale(x, fmax);
      set = {{t.amax}, {t.scale}, {t.scale_inv}};
      break;
    }
    case Recipe::per_channel:
      set = recipes::per_channel_scales(view, rc.block_rows == 1 ? recipes::Axis::rows : recipes::Axis::cols, fmax);
      break;
    case Recipe::block: set = recipes::block_scales(view, shape, fmax).scales; break;
    case Recipe::mx: {
      const recipes::MxScales mx = recipes::mx_scales(view, fmax);
      e.amax = mx.amax;
      e.e8m0 = mx.e8m0;
      for (const std::uint8_t code : mx.e8m0) e.scale_inv.push_back(recipes::e8m0_decode(code));
      return e;
    }
    case Recipe::delayed: FAIL("delayed has no recipe function");
  }
  e.amax = set.amax;
  e.scale = set.scale;
  e.scale_inv = set.scale_inv;
  return e;
}

// The whole tensor's amax from the blocks' (NaN propagating).
float tensor_amax(const std::vector<float>& blocks) {
  float m = 0.0f;
  for (const float a : blocks)
    m = std::isnan(a) || std::isnan(m) ? std::numeric_limits<float>::quiet_NaN() : std::fmax(m, a);
  return m;
}

// The largest round-trip error allowed for element x of a block with scale
// s and dequantization factor si, the element decoding to x'.
//   FP8: v = fl(x * s) rounds to the fp8 value d with |d - v| <= h(v), half
//   an ulp of the format at v (half the subnormal spacing below the normal
//   range); x' = fl(d * si). With u = 2^-24 and si = fl(1/s):
//     |x' - x| <= h(v) * si * (1 + 4u) + |x| * 4u,
//   loosened to (1 + 2^-20) and 2^-21 for the second-order terms.
//   INT8 symmetric: q = rne(fl(x / si)) (the recipe keeps |x / si| <= 127
//   up to one rounding), x' = fl(q * si): |x' - x| <= si * (1/2 + 127 * 4u)
//   <= si * (1/2 + 2^-14).
//   INT8 asymmetric: the same over |q - zp| <= 255 steps, both range ends
//   within half a step of the code range (cpu_ops.hpp):
//     |x' - x| <= si * (1/2 + 255 * 3u) <= si * (1/2 + 2^-13).
double round_trip_bound(float x, float s, float si, ElementFormat f) {
  switch (f) {
    case ElementFormat::int8: return double{si} * (0.5 + 0x1p-14);
    case ElementFormat::int8_asym: return double{si} * (0.5 + 0x1p-13);
    default: break;
  }
  const double v = static_cast<double>(x * s);  // the fp32 product the op rounds
  return fp8_half_ulp(v, f) * double{si} * (1.0 + 0x1p-20) + std::fabs(double{x}) * 0x1p-21;
}

bool is_overflow_code(std::uint8_t code, ElementFormat f) {
  if (f == ElementFormat::e4m3) return (code & 0x7F) == 0x7F;  // NaN
  if (f == ElementFormat::e5m2) return (code & 0x7F) >= 0x7C;  // Inf or NaN
  return false;
}

struct Shape {
  std::int64_t rows, cols;
};

}  // namespace

TEST_CASE("every recipe, format and input dtype: recipe scales, no overflow, round trip within half an ulp") {
  const auto combos = all_combos();
  const Combo combo = combos[static_cast<std::size_t>(GENERATE_COPY(range(0, static_cast<int>(combos.size()))))];
  const std::int32_t dtype = GENERATE(from_range(std::begin(kInputDtypes), std::end(kInputDtypes)));
  // Partial edge blocks in every direction: 40 = 32 + 8, 130 = 128 + 2,
  // 300 = 2 x 128 + 44, 129 = 128 + 1.
  const Shape shape = GENERATE(Shape{1, 1}, Shape{3, 40}, Shape{130, 300}, Shape{77, 129});
  const std::uint32_t seed = fresh_seed();
  INFO(combo.recipe.name << " " << format_name(combo.format) << " " << dtype_name(dtype) << " " << shape.rows << "x"
                         << shape.cols << " seed " << seed);
  HostMatrix in = random_input(shape.rows, shape.cols, dtype, 7, seed);
  // Without saturation an overflow would show as NaN or Inf codes.
  QuantizeRequest request{combo.recipe, combo.format};
  request.saturate = false;
  const Quantized q = quantize(in, request);
  CHECK(q.codes.padding_intact());

  const Expected e = expected_scales(in, combo.recipe, combo.format);
  const float amax = tensor_amax(e.amax);
  CHECK(std::bit_cast<std::uint32_t>(q.amax) == std::bit_cast<std::uint32_t>(amax));
  CHECK(std::bit_cast<std::uint32_t>(q.returned_amax) == std::bit_cast<std::uint32_t>(amax));
  if (combo.recipe.recipe == Recipe::mx) {
    CHECK(q.e8m0 == e.e8m0);
  } else {
    CHECK(bytes_of(q.scale_inv) == bytes_of(e.scale_inv));
    CHECK(bytes_of(q.scale) == bytes_of(e.scale));
  }
  if (combo.format == ElementFormat::int8_asym) CHECK(q.zero_point == e.zero_point);

  const HostMatrix back = dequantize(q, combo.recipe, combo.format, FRUGAL_DTYPE_FLOAT32);
  CHECK(back.padding_intact());
  const std::int64_t br = combo.recipe.resolved_rows(in.rows), bc = combo.recipe.resolved_cols(in.cols);
  std::int64_t failures = 0;
  for (std::int64_t r = 0; r < in.rows; ++r) {
    for (std::int64_t c = 0; c < in.cols; ++c) {
      const std::size_t b = q.block_of(r, c, br, bc);
      const float x = in.get(r, c), xr = back.get(r, c);
      const float si = e.scale_inv[b];
      const float s = combo.recipe.recipe == Recipe::mx
                          ? recipes::e8m0_decode(static_cast<std::uint8_t>(254 - e.e8m0[b]))
                          : e.scale[b];
      const bool overflow = is_overflow_code(q.codes.code(r, c), combo.format);
      // Real 0 is exact: code 0 (fp8, int8) or the zero point (int8_asym).
      const bool zero_code =
          combo.format != ElementFormat::int8_asym || static_cast<std::int8_t>(q.codes.code(r, c)) == q.zero_point[b];
      const bool zero_ok = x != 0.0f || (xr == 0.0f && zero_code);
      const double err = std::fabs(double{xr} - double{x});
      const double bound = round_trip_bound(x, s, si, combo.format);
      if (overflow || !zero_ok || !(err <= bound)) {
        if (++failures <= 5) {
          UNSCOPED_INFO("(" << r << ", " << c << ") x " << x << " -> " << xr << " code " << int{q.codes.code(r, c)}
                            << " scale_inv " << si << " error " << err << " bound " << bound);
        }
      }
    }
  }
  CHECK(failures == 0);
}

TEST_CASE("fake equals dequantize(quantize(x)) in the input dtype, also in place, and output_t is the transpose") {
  const auto combos = all_combos();
  const Combo combo = combos[static_cast<std::size_t>(GENERATE_COPY(range(0, static_cast<int>(combos.size()))))];
  const std::int32_t dtype = GENERATE(from_range(std::begin(kInputDtypes), std::end(kInputDtypes)));
  const std::uint32_t seed = fresh_seed();
  INFO(combo.recipe.name << " " << format_name(combo.format) << " " << dtype_name(dtype) << " seed " << seed);
  const HostMatrix original = random_input(67, 150, dtype, 4, seed);
  HostMatrix in = original;
  HostMatrix fake(in.rows, in.cols, dtype, 9);
  QuantizeRequest request{combo.recipe, combo.format};
  request.fake = &fake;
  request.transposed = combo.recipe.recipe == Recipe::current;  // per-tensor recipes only
  const Quantized q = quantize(in, request);
  CHECK(in.bytes == original.bytes);  // the input is read only
  CHECK(fake.padding_intact());

  // The same rounding as dequantize into the input dtype, and as rounding
  // dequantize's fp32 result once.
  const HostMatrix expected = dequantize(q, combo.recipe, combo.format, dtype);
  CHECK(fake.payload() == expected.payload());
  const HostMatrix wide = dequantize(q, combo.recipe, combo.format, FRUGAL_DTYPE_FLOAT32);
  HostMatrix narrowed(in.rows, in.cols, dtype);
  for (std::int64_t r = 0; r < in.rows; ++r)
    for (std::int64_t c = 0; c < in.cols; ++c) narrowed.set(r, c, wide.get(r, c));
  CHECK(fake.payload() == narrowed.payload());

  // In place: fake is the input itself; codes and fake come out the same.
  HostMatrix in_place = original;
  request.fake = &in_place;
  request.transposed = false;
  const Quantized q2 = quantize(in_place, request);
  CHECK(q2.codes.payload() == q.codes.payload());
  CHECK(in_place.payload() == fake.payload());
  CHECK(in_place.padding_intact());

  if (combo.recipe.recipe == Recipe::current) {
    REQUIRE(q.codes_t.rows == in.cols);
    std::int64_t mismatches = 0;
    for (std::int64_t r = 0; r < in.rows; ++r)
      for (std::int64_t c = 0; c < in.cols; ++c) mismatches += q.codes_t.code(c, r) != q.codes.code(r, c);
    CHECK(mismatches == 0);
    CHECK(q.codes_t.padding_intact());
    CHECK(bytes_of(q.scale_t) == bytes_of(q.scale));
    CHECK(bytes_of(q.scale_inv_t) == bytes_of(q.scale_inv));
    CHECK(std::bit_cast<std::uint32_t>(q.amax_t) == std::bit_cast<std::uint32_t>(q.amax));
  }
}

TEST_CASE("threads = 1 and threads = N give identical bytes") {
  const auto combos = all_combos();
  const int index = GENERATE_COPY(range(0, static_cast<int>(combos.size())));
  const Combo combo = combos[static_cast<std::size_t>(index)];
  const std::int32_t dtype = kInputDtypes[index % 3];
  const std::uint32_t seed = fresh_seed();
  INFO(combo.recipe.name << " " << format_name(combo.format) << " " << dtype_name(dtype) << " seed " << seed);
  // 200 x 520 elements: enough work for three chunks.
  const HostMatrix original = random_input(200, 520, dtype, 5, seed);
  REQUIRE(ops::detail::chunk_count(200, 520, 3) == 3);
  std::vector<std::vector<std::uint8_t>> codes, fakes, scales, dequantized;
  for (const unsigned threads : {1u, 2u, 3u}) {
    HostMatrix in = original;
    QuantizeRequest request{combo.recipe, combo.format};
    request.threads = threads;
    request.fake = &in;  // in place, the hardest case for a split
    request.transposed = combo.recipe.recipe == Recipe::current;
    const Quantized q = quantize(in, request);
    codes.push_back(q.codes.payload());
    if (request.transposed) codes.back() = q.codes_t.payload();
    fakes.push_back(in.payload());
    auto s = bytes_of(q.scale_inv);
    const auto sc = bytes_of(q.scale);
    s.insert(s.end(), sc.begin(), sc.end());
    s.insert(s.end(), q.e8m0.begin(), q.e8m0.end());
    for (const std::int8_t z : q.zero_point) s.push_back(static_cast<std::uint8_t>(z));
    const auto amaxes = bytes_of({q.amax, q.returned_amax});
    s.insert(s.end(), amaxes.begin(), amaxes.end());
    scales.push_back(s);
    dequantized.push_back(dequantize(q, combo.recipe, combo.format, FRUGAL_DTYPE_FLOAT32, threads).payload());
  }
  for (std::size_t i = 1; i < codes.size(); ++i) {
    CHECK(codes[i] == codes[0]);
    CHECK(fakes[i] == fakes[0]);
    CHECK(scales[i] == scales[0]);
    CHECK(dequantized[i] == dequantized[0]);
  }
}

TEST_CASE("the delayed recipe converts x * fixed_scale, saturating or not, and reports amax") {
  const ElementFormat format = GENERATE(ElementFormat::e4m3, ElementFormat::e5m2);
  const bool saturate = GENERATE(true, false);
  const std::int32_t dtype = GENERATE(from_range(std::begin(kInputDtypes), std::end(kInputDtypes)));
  const std::uint32_t seed = fresh_seed();
  INFO(format_name(format) << (saturate ? " saturating " : " non-saturating ") << dtype_name(dtype) << " seed "
                           << seed);
  HostMatrix in = random_input(45, 70, dtype, 3, seed);
  const std::vector<float> x = in.compact();
  const float amax = recipes::amax(x);
  REQUIRE(amax > 0.0f);
  // A scale that sends the larger half of the magnitudes past the format's
  // range, and a reciprocal that is not a power of two.
  const float scale = 2.0f * format_max(format) / amax * 1.37f;
  QuantizeRequest request{{Recipe::delayed, 0, 0, "delayed"}, format};
  request.saturate = saturate;
  request.fixed_scale = scale;
  request.fixed_scale_inv = 1.0f / scale;
  HostMatrix fake(in.rows, in.cols, dtype);
  request.fake = &fake;
  const Quantized q = quantize(in, request);
  CHECK(q.scale == std::vector<float>{scale});
  CHECK(q.scale_inv == std::vector<float>{1.0f / scale});
  CHECK(std::bit_cast<std::uint32_t>(q.amax) == std::bit_cast<std::uint32_t>(amax));
  const Saturation sat = saturate ? Saturation::finite : Saturation::none;
  std::int64_t mismatches = 0, overflows = 0;
  for (std::int64_t r = 0; r < in.rows; ++r) {
    for (std::int64_t c = 0; c < in.cols; ++c) {
      const float v = in.get(r, c) * scale;
      const std::uint8_t code = frugal::quant::fp32_to_fp8(v, fp8_of(format), sat);
      mismatches += q.codes.code(r, c) != code;
      overflows += std::fabs(v) > 2.0f * format_max(format);
      // Past twice the range: saturated to +-max, or NaN (E4M3) / Inf (E5M2).
      if (std::fabs(v) > 2.0f * format_max(format)) {
        const std::uint8_t mag = q.codes.code(r, c) & 0x7F;
        const std::uint8_t max_code = format == ElementFormat::e4m3 ? 0x7E : 0x7B;
        const std::uint8_t overflow_code = format == ElementFormat::e4m3 ? 0x7F : 0x7C;
        mismatches += mag != (saturate ? max_code : overflow_code);
      }
      const float expected_fake = frugal::quant::fp8_to_fp32(code, fp8_of(format)) * (1.0f / scale);
      HostMatrix one(1, 1, dtype);
      one.set(0, 0, expected_fake);
      mismatches += std::memcmp(fake.at(r, c), one.at(0, 0), dtype_size(dtype)) != 0;
    }
  }
  CHECK(overflows > 0);
  CHECK(mismatches == 0);
}

TEST_CASE("int8 zero points: range ends within half a step of the code range, real 0 exact") {
  const std::uint32_t seed = fresh_seed();
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> exp(-120, 120);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  const float big = std::numeric_limits<float>::max();
  std::vector<std::pair<float, float>> ranges{{0.0f, 1.0f}, {-1.0f, 0.0f},  {-big, big},
                                              {-big, 0.0f}, {0.0f, 1e-40f}, {-3.0f, 1e-30f}};
  for (int i = 0; i < 2000; ++i)
    ranges.emplace_back(-std::ldexp(unit(rng), exp(rng)) * (i % 7 == 0 ? 0.0f : 1.0f), std::ldexp(unit(rng), exp(rng)));
  for (const auto& [lo, hi] : ranges) {
    INFO("lo " << lo << " hi " << hi);
    const ops::Int8AsymmetricScale s = ops::int8_asymmetric_scale(lo, hi);
    if (!(hi > lo)) {
      CHECK((s.scale_inv == 1.0f && s.zero_point == 0));
      continue;
    }
    CHECK(double{s.scale_inv} * 255.0 >= double{hi} - double{lo});
    CHECK(s.scale == 1.0f / s.scale_inv);
    CHECK(double{lo} / s.scale_inv + s.zero_point >= -128.5 - 1e-6);
    CHECK(double{hi} / s.scale_inv + s.zero_point <= 127.5 + 1e-6);
    const std::int8_t z = frugal::quant::quantize_int8_asymmetric(0.0f, s.scale_inv, s.zero_point);
    CHECK(z == s.zero_point);
    CHECK(frugal::quant::dequantize_int8_asymmetric(z, s.scale_inv, s.zero_point) == 0.0f);
  }
  // Non-finite ranges fall back like the fp32 recipes: step 1, zero point 0.
  for (const float inf : {std::numeric_limits<float>::infinity()}) {
    CHECK(ops::int8_asymmetric_scale(-inf, 1.0f).scale_inv == 1.0f);
    CHECK(ops::int8_asymmetric_scale(0.0f, inf).zero_point == 0);
  }
}

TEST_CASE("NaN and Inf: amax is the canonical NaN, MX blocks turn NaN, INT8 ranges ignore NaN") {
  const float snan = std::bit_cast<float>(0x7FA0'0001u);  // a signalling NaN with a payload
  const float inf = std::numeric_limits<float>::infinity();
  HostMatrix in(2, 64, FRUGAL_DTYPE_FLOAT32);
  for (std::int64_t r = 0; r < 2; ++r)
    for (std::int64_t c = 0; c < 64; ++c) in.set(r, c, static_cast<float>(c - 20) * 0.25f);
  in.set(0, 5, snan);  // row 0, first MX block
  in.set(1, 40, inf);  // row 1, second MX block

  const Quantized mx = quantize(in, {{Recipe::mx, 1, 32, "mx"}, ElementFormat::e4m3});
  CHECK(std::bit_cast<std::uint32_t>(mx.amax) == 0x7FC0'0000u);
  CHECK(mx.e8m0[0] == recipes::kE8M0Nan);  // row 0, block 0: NaN
  CHECK(mx.e8m0[3] == recipes::kE8M0Nan);  // row 1, block 1: Inf
  CHECK(mx.e8m0[1] == recipes::mx_scale_code(43.0f * 0.25f, recipes::kE4M3Max));
  for (std::int64_t c = 0; c < 32; ++c) CHECK((mx.codes.code(0, c) & 0x7F) == 0x7F);
  for (std::int64_t c = 32; c < 64; ++c) CHECK((mx.codes.code(1, c) & 0x7F) == 0x7F);

  // Per-channel rows: the NaN row gets scale 1 and its NaN element the NaN code.
  const Quantized pc = quantize(in, {{Recipe::per_channel, 1, 0, "per_channel rows"}, ElementFormat::e5m2});
  CHECK(pc.scale[0] == 1.0f);
  CHECK(pc.scale[1] == 1.0f);  // Inf: no scale makes it finite
  CHECK(pc.codes.code(0, 5) == 0x7F);

  // Asymmetric INT8: the NaN is ignored for the range and quantizes to the zero point.
  HostMatrix finite_row(1, 64, FRUGAL_DTYPE_FLOAT32);
  for (std::int64_t c = 0; c < 64; ++c) finite_row.set(0, c, in.get(0, c == 5 ? 6 : c));
  const Quantized a = quantize(in, {{Recipe::per_channel, 1, 0, "per_channel rows"}, ElementFormat::int8_asym});
  const Quantized b = quantize(finite_row, {{Recipe::per_channel, 1, 0, "per_channel rows"}, ElementFormat::int8_asym});
  CHECK(a.scale_inv[0] == b.scale_inv[0]);
  CHECK(a.zero_point[0] == b.zero_point[0]);
  CHECK(static_cast<std::int8_t>(a.codes.code(0, 5)) == a.zero_point[0]);
  CHECK(std::isnan(a.amax));
}

TEST_CASE("amax_cpu gives quantize_cpu's whole-tensor amax, for any thread count, writing nothing") {
  const std::int32_t dtype = GENERATE_COPY(from_range(std::begin(kInputDtypes), std::end(kInputDtypes)));
  const std::uint32_t seed = fresh_seed();
  INFO(dtype_name(dtype) << " seed " << seed);
  // 200 x 520 with padded rows: three chunks at threads = 3.
  HostMatrix in = random_input(200, 520, dtype, 5, seed);
  const std::vector<std::uint8_t> before = in.bytes;
  for (const unsigned threads : {1u, 3u}) {
    const Quantized q = quantize(in, {{Recipe::current, 0, 0, "current"}, ElementFormat::e4m3});
    CHECK(std::bit_cast<std::uint32_t>(ops::amax_cpu(in.view(), threads)) ==
          std::bit_cast<std::uint32_t>(q.returned_amax));
    CHECK(in.bytes == before);
  }
  // Inf, then a NaN in the last row (the canonical NaN, whichever was seen).
  const float inf = std::numeric_limits<float>::infinity();
  const float snan = std::bit_cast<float>(0x7FA0'0001u);
  in.set(7, 11, -inf);
  CHECK(ops::amax_cpu(in.view(), 3) == inf);
  in.set(199, 519, snan);
  CHECK(std::bit_cast<std::uint32_t>(ops::amax_cpu(in.view(), 3)) == 0x7FC0'0000u);
}
