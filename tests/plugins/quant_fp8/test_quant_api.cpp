// The quantizer C API end to end with the quant_fp8 plugin loaded from disk:
// layouts and scale grids of every recipe, quantize / dequantize / fake /
// output_t on CPU tensors (N-D, padded rows) checked byte for byte against
// the ops library, the GEMM, CUDA tensors in a CPU-only build, and bad
// options. The delayed recipe's state is in test_quant_api_state.cpp.
#include <catch2/catch.hpp>

#include "test_seed.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "formats/half.hpp"
#include "ops/cpu_ops.hpp"
#include "quant_api_support.hpp"
#include "test_helpers.hpp"

using namespace frugal;
using namespace frugal::test;
namespace ops = frugal::quant::ops;

namespace {

// One configuration of quant_fp8 and what the spec says its layout is.
struct Case {
  const char* format;
  const char* recipe;
  const char* axis;    // nullptr: not set
  int64_t block_rows;  // 0: not set
  ops::ElementFormat ops_format;
  ops::Recipe ops_recipe;
  int32_t dtype, mode, br, bc, scale_dtype;
  uint32_t flags;
};

constexpr int32_t kE4M3 = FRUGAL_DTYPE_FLOAT8_E4M3FN;
constexpr int32_t kE5M2 = FRUGAL_DTYPE_FLOAT8_E5M2;
constexpr int32_t kF32 = FRUGAL_DTYPE_FLOAT32;

const Case kCases[] = {
    {"e4m3", "delayed", nullptr, 0, ops::ElementFormat::e4m3, ops::Recipe::delayed, kE4M3, FRUGAL_SCALING_DELAYED, 0, 0,
     kF32, 0},
    {"e5m2", "current", nullptr, 0, ops::ElementFormat::e5m2, ops::Recipe::current, kE5M2, FRUGAL_SCALING_CURRENT, 0, 0,
     kF32, 0},
    {"e4m3", "per_channel", "rows", 0, ops::ElementFormat::e4m3, ops::Recipe::per_channel, kE4M3,
     FRUGAL_SCALING_PER_CHANNEL, 1, 0, kF32, 0},
    {"e5m2", "per_channel", "cols", 0, ops::ElementFormat::e5m2, ops::Recipe::per_channel, kE5M2,
     FRUGAL_SCALING_PER_CHANNEL, 0, 1, kF32, 0},
    {"e4m3", "block", nullptr, 0, ops::ElementFormat::e4m3, ops::Recipe::block, kE4M3, FRUGAL_SCALING_BLOCK, 1, 128,
     kF32, 0},
    {"e4m3", "block", nullptr, 128, ops::ElementFormat::e4m3, ops::Recipe::block, kE4M3, FRUGAL_SCALING_BLOCK, 128, 128,
     kF32, 0},
    {"e5m2", "mx", nullptr, 0, ops::ElementFormat::e5m2, ops::Recipe::mx, kE5M2, FRUGAL_SCALING_MX, 1, 32,
     FRUGAL_DTYPE_FLOAT8_E8M0FNU, 0},
    {"int8", "current", nullptr, 0, ops::ElementFormat::int8, ops::Recipe::current, FRUGAL_DTYPE_INT8,
     FRUGAL_SCALING_CURRENT, 0, 0, kF32, 0},
    {"int8", "per_channel", "rows", 0, ops::ElementFormat::int8, ops::Recipe::per_channel, FRUGAL_DTYPE_INT8,
     FRUGAL_SCALING_PER_CHANNEL, 1, 0, kF32, 0},
    {"int8_asym", "current", nullptr, 0, ops::ElementFormat::int8_asym, ops::Recipe::current, FRUGAL_DTYPE_INT8,
     FRUGAL_SCALING_CURRENT, 0, 0, kF32, FRUGAL_QUANT_LAYOUT_ZERO_POINT},
    {"int8_asym", "per_channel", "cols", 0, ops::ElementFormat::int8_asym, ops::Recipe::per_channel, FRUGAL_DTYPE_INT8,
     FRUGAL_SCALING_PER_CHANNEL, 0, 1, kF32, FRUGAL_QUANT_LAYOUT_ZERO_POINT},
};

std::string case_name(const Case& c) {
  std::string s = std::string(c.format) + " " + c.recipe;
  if (c.axis != nullptr) s += std::string(" ") + c.axis;
  if (c.block_rows != 0) s += " block_rows " + std::to_string(c.block_rows);
  return s;
}

host::QuantizerPtr make_quantizer(frugal_context* context, const Case& c) {
  auto options = make_quant_options({{"format", c.format}, {"recipe", c.recipe}});
  if (c.axis != nullptr) host::check(frugal_options_set_string(options.get(), "axis", c.axis));
  if (c.block_rows != 0) host::check(frugal_options_set_int(options.get(), "block_rows", c.block_rows));
  return host::make_quantizer(context, "quant_fp8", options.get());
}

ops::Matrix matrix_of(HostTensor& t) { return {{t.view.data, t.rows(), t.cols(), t.row_stride()}, t.view.dtype}; }

void fill_random(HostTensor& t, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> exp(-6, 6);
  for (int64_t r = 0; r < t.rows(); ++r) {
    const int e = exp(rng);
    for (int64_t c = 0; c < t.cols(); ++c) {
      const float v = (c % 11 == 3) ? 0.0f : std::ldexp(normal(rng), e);  // some exact zeros
      uint8_t* p = t.at(r, c);
      if (t.view.dtype == FRUGAL_DTYPE_FLOAT32) {
        std::memcpy(p, &v, 4);
      } else {
        const uint16_t h = t.view.dtype == FRUGAL_DTYPE_FLOAT16 ? quant::fp32_to_fp16(v) : quant::fp32_to_bf16(v);
        std::memcpy(p, &h, 2);
      }
    }
  }
}

frugal_quantize_args quantize_args(const HostTensor& in, const QuantTensor& out, const QuantTensor* out_t,
                                   const HostTensor* fake) {
  frugal_quantize_args a{};
  a.struct_size = sizeof a;
  a.input = &in.view;
  a.output = &out.codes.view;
  a.output_t = out_t != nullptr ? &out_t->codes.view : nullptr;
  a.fake = fake != nullptr ? &fake->view : nullptr;
  return a;
}

// The ops library's quantize of the same input into fresh buffers shaped
// like `like`. Delayed uses the initial state's scale, 1.
struct Reference {
  std::vector<uint8_t> codes, codes_t, fake;
  std::vector<uint8_t> scale_inv;
  std::vector<float> scale;
  std::vector<int8_t> zero_point;
  float amax = -1.0f;
};

Reference reference_quantize(HostTensor& in, const Case& c, const QuantTensor& like, bool transposed) {
  const std::size_t grid = like.scale.payload().size() / 4;
  HostTensor codes(c.dtype, {in.rows(), in.cols()});
  HostTensor codes_t(c.dtype, {in.cols(), in.rows()});
  HostTensor fake(in.view.dtype, {in.rows(), in.cols()});
  Reference r;
  r.scale_inv.resize(grid * (c.scale_dtype == kF32 ? 4 : 1));
  r.scale.resize(grid);
  r.zero_point.resize(grid);
  ops::QuantizeOp op;
  op.input = matrix_of(in);
  op.output = matrix_of(codes);
  const ops::Matrix t = matrix_of(codes_t), f = matrix_of(fake);
  op.output_t = transposed ? &t : nullptr;
  op.fake = &f;
  op.format = c.ops_format;
  op.recipe = c.ops_recipe;
  op.block_rows = c.br == 0 ? in.rows() : c.br;
  op.block_cols = c.bc == 0 ? in.cols() : c.bc;
  op.scales = {r.scale_inv.data(), c.ops_recipe == ops::Recipe::mx ? nullptr : r.scale.data(),
               c.flags != 0 ? r.zero_point.data() : nullptr, &r.amax};
  ops::quantize_cpu(op);
  r.codes = codes.payload();
  r.codes_t = codes_t.payload();
  r.fake = fake.payload();
  return r;
}

std::vector<uint8_t> float_bytes(const std::vector<float>& v) {
  std::vector<uint8_t> out(v.size() * 4);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

}  // namespace

TEST_CASE("every recipe's layout and scale grid follow the options") {
  auto context = quant_context();
  for (const Case& c : kCases) {
    INFO(case_name(c));
    auto q = make_quantizer(context.get(), c);
    const frugal_quant_layout l = layout_of(q.get());
    CHECK(l.dtype == c.dtype);
    CHECK(l.scaling_mode == c.mode);
    CHECK(l.block_rows == c.br);
    CHECK(l.block_cols == c.bc);
    CHECK(l.scale_dtype == c.scale_dtype);
    CHECK(l.flags == c.flags);
    for (const auto& [rows, cols] : {std::pair<int64_t, int64_t>{300, 200}, {1, 1}, {129, 33}}) {
      const int64_t br = c.br == 0 ? rows : c.br, bc = c.bc == 0 ? cols : c.bc;
      CHECK(grid_of(q.get(), rows, cols) == std::vector<int64_t>{(rows + br - 1) / br, (cols + bc - 1) / bc});
    }
  }
  // The defaults: e4m3 with delayed scaling; int8 with current scaling.
  auto plain = host::make_quantizer(context.get(), "quant_fp8", nullptr);
  CHECK(layout_of(plain.get()).dtype == kE4M3);
  CHECK(layout_of(plain.get()).scaling_mode == FRUGAL_SCALING_DELAYED);
  auto int8 = make_quant_options({{"format", "int8"}});
  CHECK(layout_of(host::make_quantizer(context.get(), "quant_fp8", int8.get()).get()).scaling_mode ==
        FRUGAL_SCALING_CURRENT);
}

TEST_CASE("quantize, fake, output_t and dequantize through the C API equal the ops library") {
  auto context = quant_context();
  const Case& c = kCases[static_cast<std::size_t>(GENERATE(range(0, static_cast<int>(std::size(kCases)))))];
  const int32_t dtype = GENERATE(FRUGAL_DTYPE_FLOAT32, FRUGAL_DTYPE_BFLOAT16, FRUGAL_DTYPE_FLOAT16);
  const uint32_t seed = frugal_test::test_seed32();
  INFO(case_name(c) << " input dtype " << dtype << " seed " << seed);
  auto q = make_quantizer(context.get(), c);
  const frugal_quant_layout layout = layout_of(q.get());
  // 3-D with padded rows: the core collapses it into 90 x 70.
  HostTensor in(dtype, {3, 30, 70}, 6);
  fill_random(in, seed);
  const std::vector<int64_t> grid = grid_of(q.get(), 90, 70);
  QuantTensor out(layout, {3, 30, 70}, grid[0], grid[1], 2);
  const bool per_tensor = c.mode == FRUGAL_SCALING_DELAYED || c.mode == FRUGAL_SCALING_CURRENT;
  QuantTensor out_t(layout, {70, 90}, 1, 1);
  HostTensor fake(dtype, {3, 30, 70}, 1);
  const auto args = quantize_args(in, out, per_tensor ? &out_t : nullptr, &fake);
  host::check(frugal_quantizer_quantize(q.get(), &args));

  const Reference ref = reference_quantize(in, c, out, per_tensor);
  CHECK(out.codes.payload() == ref.codes);
  CHECK(out.scale_inv.payload() == ref.scale_inv);
  if (out.has_scale()) CHECK(out.scale.payload() == float_bytes(ref.scale));
  float amax = 0.0f;
  std::memcpy(&amax, out.amax.view.data, 4);
  CHECK(std::bit_cast<uint32_t>(amax) == std::bit_cast<uint32_t>(ref.amax));
  if (out.has_zero_point()) {
    std::vector<uint8_t> zp(ref.zero_point.size());
    std::memcpy(zp.data(), ref.zero_point.data(), zp.size());
    CHECK(out.zero_point.payload() == zp);
  }
  CHECK(fake.payload() == ref.fake);
  if (per_tensor) {
    CHECK(out_t.codes.payload() == ref.codes_t);
    CHECK(out_t.scale_inv.payload() == out.scale_inv.payload());
  }

  // Dequantize through the API and through the ops library.
  for (const int32_t out_dtype : {int32_t{FRUGAL_DTYPE_FLOAT32}, dtype}) {
    HostTensor back(out_dtype, {90, 70}, 3);
    const frugal_dequantize_args dq{sizeof(frugal_dequantize_args), &out.codes.view, &back.view, nullptr};
    host::check(frugal_quantizer_dequantize(q.get(), &dq));
    HostTensor expected(out_dtype, {90, 70});
    ops::DequantizeOp op;
    op.input = matrix_of(out.codes);
    op.output = matrix_of(expected);
    op.format = c.ops_format;
    op.recipe = c.ops_recipe;
    op.block_rows = c.br == 0 ? 90 : c.br;
    op.block_cols = c.bc == 0 ? 70 : c.bc;
    op.scale_inv = out.scale_inv.view.data;
    op.zero_point = out.has_zero_point() ? static_cast<const int8_t*>(out.zero_point.view.data) : nullptr;
    ops::dequantize_cpu(op);
    CHECK(back.payload() == expected.payload());
    if (out_dtype == dtype) CHECK(back.payload() == fake.payload());  // fake is dequantize(quantize(x))
  }

  // In place: fake is the input itself, on a fresh quantizer (same state as the first).
  auto q2 = make_quantizer(context.get(), c);
  QuantTensor out2(layout, {3, 30, 70}, grid[0], grid[1]);
  const auto args2 = quantize_args(in, out2, nullptr, &in);
  host::check(frugal_quantizer_quantize(q2.get(), &args2));
  CHECK(out2.codes.payload() == ref.codes);
  CHECK(in.payload() == ref.fake);
}

TEST_CASE("gemm on CPU tensors equals the ops library for fp32, bf16 and FP8 outputs") {
  auto context = quant_context();
  const uint32_t seed = frugal_test::test_seed32();
  INFO("seed " << seed);
  auto qa = make_quantizer(context.get(), kCases[1]);  // e5m2 current
  auto qb = make_quantizer(context.get(), Case{"e4m3", "current", nullptr, 0, ops::ElementFormat::e4m3,
                                               ops::Recipe::current, kE4M3, FRUGAL_SCALING_CURRENT, 0, 0, kF32, 0});
  HostTensor xa(kF32, {70, 300}, 4), xb(kF32, {50, 300});
  fill_random(xa, seed);
  fill_random(xb, seed + 1);
  QuantTensor a(layout_of(qa.get()), {70, 300}, 1, 1, 8), b(layout_of(qb.get()), {50, 300}, 1, 1);
  for (auto& [quantizer, x, codes] : {std::tuple{qa.get(), &xa, &a}, std::tuple{qb.get(), &xb, &b}}) {
    const auto args = quantize_args(*x, *codes, nullptr, nullptr);
    host::check(frugal_quantizer_quantize(quantizer, &args));
  }
  const int32_t d_dtype = GENERATE(FRUGAL_DTYPE_FLOAT32, FRUGAL_DTYPE_BFLOAT16, FRUGAL_DTYPE_FLOAT8_E4M3FN);
  INFO("d dtype " << d_dtype);
  frugal_quant_layout d_layout{sizeof(frugal_quant_layout), d_dtype, FRUGAL_SCALING_CURRENT, 0, 0, kF32, 0};
  QuantTensor d(d_layout, {70, 50}, 1, 1, 5);
  const bool fp8 = d_dtype == FRUGAL_DTYPE_FLOAT8_E4M3FN;
  const float d_scale = 0.125f;
  std::memcpy(d.scale.view.data, &d_scale, 4);
  if (!fp8) d.codes.view.quant = nullptr;
  const frugal_quant_gemm_args args{
      sizeof(frugal_quant_gemm_args), &a.codes.view, &b.codes.view, &d.codes.view, nullptr, 0.75f, 0};
  host::check(frugal_quantizer_gemm(qa.get(), &args));

  HostTensor expected(d_dtype, {70, 50});
  float expected_amax = -1.0f;
  ops::GemmOp op;
  op.a = matrix_of(a.codes);
  op.b = matrix_of(b.codes);
  op.d = matrix_of(expected);
  op.scale_inv_a = static_cast<const float*>(a.scale_inv.view.data);
  op.scale_inv_b = static_cast<const float*>(b.scale_inv.view.data);
  op.d_scale = &d_scale;
  op.d_amax = &expected_amax;
  op.alpha = 0.75f;
  ops::gemm_cpu(op);
  CHECK(d.codes.payload() == expected.payload());
  if (fp8) CHECK(d.amax.payload() == float_bytes({expected_amax}));
}

#if !FRUGAL_TEST_QUANT_CUDA
TEST_CASE("CUDA tensors in a CPU-only build are FRUGAL_ERR_UNSUPPORTED naming the device") {
  auto context = quant_context();
  const frugal_device cuda{FRUGAL_DEVICE_CUDA, 0};
  for (const Case& c : {kCases[0], kCases[1], kCases[6]}) {
    INFO(case_name(c));
    auto q = make_quantizer(context.get(), c);
    const frugal_quant_layout layout = layout_of(q.get());
    // Host memory labelled CUDA: nothing may touch it.
    HostTensor in(kF32, {4, 64}, 0, cuda);
    const std::vector<int64_t> grid = grid_of(q.get(), 4, 64);
    QuantTensor out(layout, {4, 64}, grid[0], grid[1]);
    for (HostTensor* t : {&out.codes, &out.scale_inv, &out.scale, &out.amax}) t->view.device = cuda;
    const std::vector<uint8_t> before = out.codes.payload();
    const auto args = quantize_args(in, out, nullptr, nullptr);
    expect_error(frugal_quantizer_quantize(q.get(), &args), FRUGAL_ERR_UNSUPPORTED, {"CUDA"});
    HostTensor back(kF32, {4, 64}, 0, cuda);
    const frugal_dequantize_args dq{sizeof(frugal_dequantize_args), &out.codes.view, &back.view, nullptr};
    expect_error(frugal_quantizer_dequantize(q.get(), &dq), FRUGAL_ERR_UNSUPPORTED, {"CUDA"});
    CHECK(out.codes.payload() == before);
  }
  // The GEMM too: per-tensor E4M3 operands and an fp32 D, all labelled CUDA.
  auto q = make_quantizer(context.get(), kCases[0]);
  QuantTensor a(layout_of(q.get()), {8, 32}, 1, 1), b(layout_of(q.get()), {4, 32}, 1, 1);
  for (QuantTensor* t : {&a, &b})
    for (HostTensor* h : {&t->codes, &t->scale_inv, &t->scale, &t->amax}) h->view.device = cuda;
  HostTensor d(kF32, {8, 4}, 0, cuda);
  const frugal_quant_gemm_args args{
      sizeof(frugal_quant_gemm_args), &a.codes.view, &b.codes.view, &d.view, nullptr, 1.0f, 0};
  expect_error(frugal_quantizer_gemm(q.get(), &args), FRUGAL_ERR_UNSUPPORTED, {"CUDA"});
}
#endif

TEST_CASE("bad options are errors naming the option") {
  auto context = quant_context();
  struct Bad {
    std::vector<Option> options;
    const char* mention;
  };
  const std::vector<Bad> cases{
      {{{"format", "fp4"}}, "format"},
      {{{"format", int64_t{8}}}, "format"},
      {{{"recipe", "adaptive"}}, "recipe"},
      {{{"format", "int8"}, {"recipe", "delayed"}}, "recipe"},
      {{{"format", "int8_asym"}, {"recipe", "mx"}}, "recipe"},
      {{{"format", "int8"}, {"recipe", "block"}}, "recipe"},
      {{{"format", "int8"}, {"saturate", false}}, "saturate"},
      {{{"saturate", "yes"}}, "saturate"},
      {{{"history", int64_t{0}}}, "history"},
      {{{"history", int64_t{65537}}}, "history"},
      {{{"recipe", "current"}, {"history", int64_t{16}}}, "history"},
      {{{"reduction", "mean"}}, "reduction"},
      {{{"recipe", "mx"}, {"reduction", "max"}}, "reduction"},
      {{{"margin", int64_t{17}}}, "margin"},
      {{{"margin", int64_t{-17}}}, "margin"},
      {{{"recipe", "block"}, {"margin", int64_t{1}}}, "margin"},
      {{{"recipe", "per_channel"}, {"axis", "diagonal"}}, "axis"},
      {{{"recipe", "current"}, {"axis", "rows"}}, "axis"},
      {{{"recipe", "block"}, {"block_rows", int64_t{64}}}, "block_rows"},
      {{{"recipe", "block"}, {"block_cols", int64_t{32}}}, "block_cols"},
      {{{"recipe", "block"}, {"block_rows", int64_t{4294967297}}}, "block_rows"},
      {{{"recipe", "mx"}, {"block_cols", int64_t{128}}}, "block_cols"},
      {{{"threads", int64_t{-1}}}, "threads"},
      {{{"tile", int64_t{4}}}, "tile"},
  };
  for (const Bad& b : cases) {
    auto options = make_quant_options(b.options);
    std::string text;
    for (const Option& o : b.options) text += std::string(o.name) + " ";
    INFO("options: " << text);
    frugal_quantizer* q = nullptr;
    const auto result = outcome(frugal_quantizer_create(context.get(), "quant_fp8", options.get(), &q));
    CHECK(q == nullptr);
    INFO("message: " << result.message);
    CHECK(result.code != FRUGAL_OK);
    CHECK(result.message.find(b.mention) != std::string::npos);
  }
}
