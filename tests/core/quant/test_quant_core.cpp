// The quantizer's C API as the core implements it, independent of any real
// quantizer: tensors are checked and rewritten into 2-D views before a
// plugin sees them, every bad combination is an error naming it, and
// plugins that break the contract are caught. The probe_quant test plugin
// echoes the views it receives (tests/core/loader/probe_quant_plugin.cpp).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "test_helpers.hpp"

using namespace frugal;
using namespace frugal::test;

namespace {

// A host tensor over caller-owned bytes, with its own shape and strides.
struct Tensor {
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  frugal_tensor view{};
  frugal_quant_meta meta{};

  Tensor(void* data, int32_t dtype, std::vector<int64_t> s, std::vector<int64_t> st = {},
         frugal_device device = {FRUGAL_DEVICE_CPU, 0})
      : shape(std::move(s)), strides(std::move(st)) {
    view.struct_size = sizeof(frugal_tensor);
    view.data = data;
    view.dtype = dtype;
    view.ndim = static_cast<int32_t>(shape.size());
    view.device = device;
    view.shape = shape.data();
    view.strides = strides.empty() ? nullptr : strides.data();
  }
  Tensor(const Tensor&) = delete;
  // Attaches scales: scale_inv required by the API, scale and amax optional.
  void quantized(int32_t mode, int32_t br, int32_t bc, const frugal_tensor* scale_inv,
                 const frugal_tensor* scale = nullptr, const frugal_tensor* amax = nullptr) {
    meta = {sizeof(frugal_quant_meta), mode, br, bc, 0, scale, scale_inv, amax, nullptr};
    view.quant = &meta;
  }
};

// Buffers big enough for any tensor in these tests.
alignas(64) float g_input[4096];
alignas(64) uint8_t g_codes[4096];
alignas(64) uint8_t g_codes_t[4096];
alignas(64) float g_scales[512];
alignas(64) float g_amax[4];

host::ContextPtr probe_context() {
  auto context = host::make_context();
  host::check(frugal_context_load_plugin(context.get(), plugin_path("probe_quant").c_str()));
  return context;
}

host::QuantizerPtr make_probe(frugal_context* context, const char* mode, const char* dtype = "e4m3",
                              const char* fault = nullptr, const char* strategy = "probe_quant") {
  auto options = host::make_options();
  host::check(frugal_options_set_string(options.get(), "mode", mode));
  host::check(frugal_options_set_string(options.get(), "dtype", dtype));
  if (fault != nullptr) host::check(frugal_options_set_string(options.get(), "fault", fault));
  host::check(frugal_options_set_bool(options.get(), "echo", 1));
  return host::make_quantizer(context, strategy, options.get());
}

// The probe's echo of a call that reached it.
std::string echo_of(frugal_error* error) {
  const std::string message = probe_echo(error);
  CHECK(message.find("!bad-view") == std::string::npos);
  return message;
}

std::string view_text(const char* name, int64_t rows, int64_t cols, int64_t stride, const void* data,
                      int device = FRUGAL_DEVICE_CPU) {
  // The probe's format: " name=ROWSxCOLS/STRIDE@ADDRESS:DEVICE+BYTE_OFFSET".
  char line[200];
  std::snprintf(line, sizeof line, " %s=%lldx%lld/%lld@%p:%d+0", name, static_cast<long long>(rows),
                static_cast<long long>(cols), static_cast<long long>(stride), data, device);
  return line;
}

frugal_quantize_args args_of(const Tensor& in, const Tensor& out, const Tensor* out_t = nullptr,
                             const Tensor* fake = nullptr) {
  frugal_quantize_args a{};
  a.struct_size = sizeof a;
  a.input = &in.view;
  a.output = &out.view;
  a.output_t = out_t != nullptr ? &out_t->view : nullptr;
  a.fake = fake != nullptr ? &fake->view : nullptr;
  return a;
}

}  // namespace

TEST_CASE("quantizer layout and scale grids follow the strategy's layout") {
  auto context = probe_context();
  struct Case {
    const char* mode;
    int32_t scaling, br, bc, scale_dtype;
    int64_t grid_rows, grid_cols;  // for a 300 x 200 tensor
  };
  for (const Case c : {Case{"delayed", FRUGAL_SCALING_DELAYED, 0, 0, FRUGAL_DTYPE_FLOAT32, 1, 1},
                       Case{"current", FRUGAL_SCALING_CURRENT, 0, 0, FRUGAL_DTYPE_FLOAT32, 1, 1},
                       Case{"rows", FRUGAL_SCALING_PER_CHANNEL, 1, 0, FRUGAL_DTYPE_FLOAT32, 300, 1},
                       Case{"cols", FRUGAL_SCALING_PER_CHANNEL, 0, 1, FRUGAL_DTYPE_FLOAT32, 1, 200},
                       Case{"block", FRUGAL_SCALING_BLOCK, 128, 128, FRUGAL_DTYPE_FLOAT32, 3, 2},
                       Case{"mx", FRUGAL_SCALING_MX, 1, 32, FRUGAL_DTYPE_FLOAT8_E8M0FNU, 300, 7}}) {
    INFO(c.mode);
    auto q = make_probe(context.get(), c.mode);
    frugal_quant_layout layout{};
    layout.struct_size = sizeof layout;
    host::check(frugal_quantizer_layout(q.get(), &layout));
    CHECK(layout.scaling_mode == c.scaling);
    CHECK(layout.block_rows == c.br);
    CHECK(layout.block_cols == c.bc);
    CHECK(layout.scale_dtype == c.scale_dtype);
    int64_t grid[2] = {-1, -1};
    host::check(frugal_quantizer_scale_shape(q.get(), 300, 200, grid));
    CHECK(grid[0] == c.grid_rows);
    CHECK(grid[1] == c.grid_cols);
  }
  auto q = make_probe(context.get(), "block");
  int64_t grid[2];
  expect_error(frugal_quantizer_scale_shape(q.get(), 0, 5, grid), FRUGAL_ERR_INVALID_ARGUMENT, {"rows 0"});
  // A caller's smaller (older) layout struct gets only what fits.
  frugal_quant_layout small{};
  small.struct_size = offsetof(frugal_quant_layout, block_rows);
  small.block_rows = 77;
  host::check(frugal_quantizer_layout(q.get(), &small));
  CHECK(small.scaling_mode == FRUGAL_SCALING_BLOCK);
  CHECK(small.block_rows == 77);
}

TEST_CASE("quantize hands the plugin 2-D views: N-D collapsed, offsets folded, padded rows kept") {
  auto context = probe_context();
  auto q = make_probe(context.get(), "delayed");
  Tensor scale_inv(g_scales, FRUGAL_DTYPE_FLOAT32, {1});
  SECTION("3-D compact input collapses to rows") {
    Tensor in(g_input, FRUGAL_DTYPE_FLOAT32, {2, 3, 8});
    Tensor out(g_codes, FRUGAL_DTYPE_FLOAT8_E4M3FN, {6, 8});
    out.quantized(FRUGAL_SCALING_DELAYED, 0, 0, &scale_inv.view);
    const auto a = args_of(in, out);
    const std::string seen = echo_of(frugal_quantizer_quantize(q.get(), &a));
    CHECK(seen.find(view_text("input", 6, 8, 8, g_input)) != std::string::npos);
    CHECK(seen.find(view_text("output", 6, 8, 8, g_codes)) != std::string::npos);
    CHECK(seen.find(view_text("output.scale_inv", 1, 1, 1, g_scales)) != std::string::npos);
    CHECK(seen.find(" output.scale=-") != std::string::npos);
    CHECK(seen.find(" output_t=-") != std::string::npos);
    CHECK(seen.find(" fake=-") != std::string::npos);
  }
  SECTION("padded rows, byte offsets and pinned memory") {
    Tensor in(g_input, FRUGAL_DTYPE_FLOAT32, {4, 8}, {16, 1}, {FRUGAL_DEVICE_CUDA_PINNED, 0});
    in.view.byte_offset = 64;
    Tensor out(g_codes, FRUGAL_DTYPE_FLOAT8_E4M3FN, {4, 8});
    out.view.byte_offset = 3;
    Tensor amax(g_amax, FRUGAL_DTYPE_FLOAT32, {1, 1});
    out.quantized(FRUGAL_SCALING_DELAYED, 0, 0, &scale_inv.view, &scale_inv.view, &amax.view);
    Tensor fake(g_input + 1024, FRUGAL_DTYPE_FLOAT32, {32}, {}, {FRUGAL_DEVICE_CPU, 0});
    // fake is one row of 32 while the input is 4 x 8: refused, then a right one.
    auto a = args_of(in, out, nullptr, &fake);
    expect_error(frugal_quantizer_quantize(q.get(), &a), FRUGAL_ERR_INVALID_ARGUMENT, {"fake", "1 x 32", "4 x 8"});
    Tensor fake2(g_input + 1024, FRUGAL_DTYPE_FLOAT32, {4, 1, 8}, {8, 99, 1});
    a = args_of(in, out, nullptr, &fake2);
    a.flags = FRUGAL_QUANTIZE_FREEZE_SCALE;
    const std::string seen = echo_of(frugal_quantizer_quantize(q.get(), &a));
    CHECK(seen.find(view_text("input", 4, 8, 16, g_input + 16)) != std::string::npos);  // pinned -> CPU (1)
    CHECK(seen.find(view_text("output", 4, 8, 8, g_codes + 3)) != std::string::npos);
    CHECK(seen.find(view_text("output.scale", 1, 1, 1, g_scales)) != std::string::npos);
    CHECK(seen.find(view_text("output.amax", 1, 1, 1, g_amax)) != std::string::npos);
    CHECK(seen.find(view_text("fake", 4, 8, 8, g_input + 1024)) != std::string::npos);
    CHECK(seen.find(" flags=1") != std::string::npos);
  }
}

TEST_CASE("quantize refuses layouts, shapes, dtypes and devices it cannot take, naming them") {
  auto context = probe_context();
  auto q = make_probe(context.get(), "block");  // 128 x 128 blocks
  Tensor in(g_input, FRUGAL_DTYPE_FLOAT32, {16, 200});
  Tensor out(g_codes, FRUGAL_DTYPE_FLOAT8_E4M3FN, {16, 200});
  Tensor grid(g_scales, FRUGAL_DTYPE_FLOAT32, {1, 2});
  out.quantized(FRUGAL_SCALING_BLOCK, 128, 128, &grid.view);
  auto a = args_of(in, out);
  echo_of(frugal_quantizer_quantize(q.get(), &a));  // the good call reaches the plugin

  SECTION("strides") {
    Tensor cols_strided(g_input, FRUGAL_DTYPE_FLOAT32, {16, 100}, {200, 2});
    a.input = &cols_strided.view;
    expect_error(frugal_quantizer_quantize(q.get(), &a), FRUGAL_ERR_UNSUPPORTED,
                 {"input", "last dimension", "stride 2"});
    Tensor no_collapse(g_input, FRUGAL_DTYPE_FLOAT32, {2, 8, 200}, {2000, 200, 1});
    a.input = &no_collapse.view;
    expect_error(frugal_quantizer_quantize(q.get(), &a), FRUGAL_ERR_UNSUPPORTED, {"input", "do not collapse"});
    Tensor overlap(g_input, FRUGAL_DTYPE_FLOAT32, {16, 200}, {100, 1});
    a.input = &overlap.view;
    expect_error(frugal_quantizer_quantize(q.get(), &a), FRUGAL_ERR_UNSUPPORTED, {"input", "rows overlap"});
    Tensor scalar(g_input, FRUGAL_DTYPE_FLOAT32, {});
    a.input = &scalar.view;
    expect_error(frugal_quantizer_quantize(q.get(), &a), FRUGAL_ERR_UNSUPPORTED, {"input", "scalar"});
    Tensor empty(g_input, FRUGAL_DTYPE_FLOAT32, {0, 200});
    a.input = &empty.view;
    expect_error(frugal_quantizer_quantize(q.get(), &a), FRUGAL_ERR_INVALID_ARGUMENT, {"input", "no elements"});
  }
  SECTION("dtypes") {
    Tensor ints(g_input, FRUGAL_DTYPE_INT32, {16, 200});
    a.input = &ints.view;
    expect_error(frugal_quantizer_quantize(q.get(), &a), FRUGAL_ERR_UNSUPPORTED, {"input", "int32", "float32"});
    out.view.dtype = FRUGAL_DTYPE_FLOAT8_E5M2;
    a = args_of(in, out);
    expect_error(frugal_quantizer_quantize(q.get(), &a), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"output", "float8_e5m2", "float8_e4m3fn"});
  }
  SECTION("scales") {
    out.view.quant = nullptr;
    expect_error(frugal_quantizer_quantize(q.get(), &a), FRUGAL_ERR_INVALID_ARGUMENT, {"output", "quant is NULL"});
    Tensor wrong_count(g_scales, FRUGAL_DTYPE_FLOAT32, {3});
    out.quantized(FRUGAL_SCALING_BLOCK, 128, 128, &wrong_count.view);
    expect_error(frugal_quantizer_quantize(q.get(), &a), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"output.scale_inv", "3 elements", "1 x 2"});
    Tensor transposed(g_scales, FRUGAL_DTYPE_FLOAT32, {2, 1});
    out.quantized(FRUGAL_SCALING_BLOCK, 128, 128, &transposed.view);
    expect_error(frugal_quantizer_quantize(q.get(), &a), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"output.scale_inv", "[2, 1]", "[1, 2]"});
    Tensor halfs(g_scales, FRUGAL_DTYPE_FLOAT16, {2});
    out.quantized(FRUGAL_SCALING_BLOCK, 128, 128, &halfs.view);
    expect_error(frugal_quantizer_quantize(q.get(), &a), FRUGAL_ERR_INVALID_ARGUMENT, {"float16", "expected float32"});
    out.quantized(FRUGAL_SCALING_BLOCK, 1, 128, &grid.view);
    expect_error(frugal_quantizer_quantize(q.get(), &a), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"1 x 128 blocks", "128 x 128 blocks"});
    out.quantized(FRUGAL_SCALING_MX, 128, 128, &grid.view);
    expect_error(frugal_quantizer_quantize(q.get(), &a), FRUGAL_ERR_INVALID_ARGUMENT, {"mx scaling", "block scaling"});
    Tensor amax2(g_amax, FRUGAL_DTYPE_FLOAT32, {2});
    out.quantized(FRUGAL_SCALING_BLOCK, 128, 128, &grid.view, nullptr, &amax2.view);
    expect_error(frugal_quantizer_quantize(q.get(), &a), FRUGAL_ERR_INVALID_ARGUMENT, {"output.amax", "2 elements"});
  }
  SECTION("devices") {
    Tensor on_gpu(g_codes, FRUGAL_DTYPE_FLOAT8_E4M3FN, {16, 200}, {}, {FRUGAL_DEVICE_CUDA, 1});
    on_gpu.quantized(FRUGAL_SCALING_BLOCK, 128, 128, &grid.view);
    a = args_of(in, on_gpu);
    expect_error(frugal_quantizer_quantize(q.get(), &a), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"output is on CUDA:1", "input is on CPU", "one device"});
    Tensor grid_gpu(g_scales, FRUGAL_DTYPE_FLOAT32, {1, 2}, {}, {FRUGAL_DEVICE_CUDA, 0});
    out.quantized(FRUGAL_SCALING_BLOCK, 128, 128, &grid_gpu.view);
    a = args_of(in, out);
    expect_error(frugal_quantizer_quantize(q.get(), &a), FRUGAL_ERR_INVALID_ARGUMENT, {"output.scale_inv", "CUDA:0"});
  }
  SECTION("cast-transpose needs per-tensor scaling; fake keeps the input's dtype; flags") {
    Tensor out_t(g_codes_t, FRUGAL_DTYPE_FLOAT8_E4M3FN, {200, 16});
    a = args_of(in, out, &out_t);
    expect_error(frugal_quantizer_quantize(q.get(), &a), FRUGAL_ERR_UNSUPPORTED, {"output_t", "per-tensor", "block"});
    Tensor fake(g_input + 2048, FRUGAL_DTYPE_BFLOAT16, {16, 200});
    a = args_of(in, out, nullptr, &fake);
    expect_error(frugal_quantizer_quantize(q.get(), &a), FRUGAL_ERR_INVALID_ARGUMENT, {"fake", "bfloat16", "float32"});
    a = args_of(in, out);
    a.flags = 6;
    expect_error(frugal_quantizer_quantize(q.get(), &a), FRUGAL_ERR_INVALID_ARGUMENT, {"flags", "0x6"});
    a.flags = 0;
    a.struct_size = offsetof(frugal_quantize_args, output);
    expect_error(frugal_quantizer_quantize(q.get(), &a), FRUGAL_ERR_ABI_MISMATCH, {"struct_size"});
    // An older caller's struct without output_t / fake / stream / flags still works.
    a.struct_size = offsetof(frugal_quantize_args, output_t);
    echo_of(frugal_quantizer_quantize(q.get(), &a));
  }
}

TEST_CASE("cast-transpose output, the zero-point extension, and dequantize's views") {
  auto context = probe_context();
  Tensor in(g_input, FRUGAL_DTYPE_BFLOAT16, {16, 40});
  Tensor one(g_scales, FRUGAL_DTYPE_FLOAT32, {1});
  SECTION("output_t is [cols, rows] with optional scales of its own") {
    auto q = make_probe(context.get(), "current");
    Tensor out(g_codes, FRUGAL_DTYPE_FLOAT8_E4M3FN, {16, 40});
    out.quantized(FRUGAL_SCALING_CURRENT, 0, 0, &one.view);
    Tensor wrong(g_codes_t, FRUGAL_DTYPE_FLOAT8_E4M3FN, {16, 40});
    auto a = args_of(in, out, &wrong);
    expect_error(frugal_quantizer_quantize(q.get(), &a), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"output_t", "16 x 40", "40 x 16", "transposed"});
    Tensor out_t(g_codes_t, FRUGAL_DTYPE_FLOAT8_E4M3FN, {40, 16});
    Tensor one_t(g_scales + 8, FRUGAL_DTYPE_FLOAT32, {1});
    out_t.quantized(FRUGAL_SCALING_CURRENT, 0, 0, &one_t.view);
    a = args_of(in, out, &out_t);
    const std::string seen = echo_of(frugal_quantizer_quantize(q.get(), &a));
    CHECK(seen.find(view_text("output_t", 40, 16, 16, g_codes_t)) != std::string::npos);
    CHECK(seen.find(view_text("output_t.scale_inv", 1, 1, 1, g_scales + 8)) != std::string::npos);
  }
  SECTION("asymmetric INT8 needs the zero point extension") {
    auto q = make_probe(context.get(), "asym", "int8");
    Tensor out(g_codes, FRUGAL_DTYPE_INT8, {16, 40});
    Tensor per_row(g_scales, FRUGAL_DTYPE_FLOAT32, {16});
    out.quantized(FRUGAL_SCALING_PER_CHANNEL, 1, 0, &per_row.view);
    auto a = args_of(in, out);
    expect_error(frugal_quantizer_quantize(q.get(), &a), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"zero point", "frugal_quant_zero_point_ext"});
    Tensor zp(g_codes_t, FRUGAL_DTYPE_INT8, {16, 1});
    const frugal_quant_zero_point_ext ext{
        {sizeof(frugal_quant_zero_point_ext), FRUGAL_EXT_QUANT_ZERO_POINT, 0, nullptr}, &zp.view};
    out.meta.ext = &ext.header;
    const std::string seen = echo_of(frugal_quantizer_quantize(q.get(), &a));
    CHECK(seen.find(view_text("output.zp", 16, 1, 1, g_codes_t)) != std::string::npos);
  }
  SECTION("dequantize checks the codes' meta against the layout") {
    auto q = make_probe(context.get(), "mx");
    Tensor codes(g_codes, FRUGAL_DTYPE_FLOAT8_E4M3FN, {16, 40});
    Tensor e8(g_codes_t, FRUGAL_DTYPE_FLOAT8_E8M0FNU, {16, 2});
    codes.quantized(FRUGAL_SCALING_MX, 1, 32, &e8.view);
    Tensor out(g_input + 2048, FRUGAL_DTYPE_FLOAT16, {16, 40});
    const frugal_dequantize_args dq{sizeof(frugal_dequantize_args), &codes.view, &out.view, nullptr};
    const std::string seen = echo_of(frugal_quantizer_dequantize(q.get(), &dq));
    CHECK(seen.find(view_text("input.scale_inv", 16, 2, 2, g_codes_t)) != std::string::npos);
    CHECK(seen.find(view_text("output", 16, 40, 40, g_input + 2048)) != std::string::npos);
    Tensor fp32_scales(g_scales, FRUGAL_DTYPE_FLOAT32, {16, 2});
    codes.quantized(FRUGAL_SCALING_MX, 1, 32, &e8.view, &fp32_scales.view);
    expect_error(frugal_quantizer_dequantize(q.get(), &dq), FRUGAL_ERR_UNSUPPORTED,
                 {"quant->scale must be NULL", "mx"});
    codes.quantized(FRUGAL_SCALING_MX, 1, 32, &e8.view);
    Tensor ints(g_input, FRUGAL_DTYPE_INT16, {16, 40});
    const frugal_dequantize_args to_ints{sizeof(frugal_dequantize_args), &codes.view, &ints.view, nullptr};
    expect_error(frugal_quantizer_dequantize(q.get(), &to_ints), FRUGAL_ERR_UNSUPPORTED, {"output", "int16"});
  }
}

TEST_CASE("gemm: operands, scales and output are checked before the plugin; no gemm slot is UNIMPLEMENTED") {
  auto context = probe_context();
  auto q = make_probe(context.get(), "delayed");
  Tensor sa(g_scales, FRUGAL_DTYPE_FLOAT32, {1});
  Tensor sb(g_scales + 1, FRUGAL_DTYPE_FLOAT32, {1});
  Tensor a(g_codes, FRUGAL_DTYPE_FLOAT8_E4M3FN, {8, 32});
  Tensor b(g_codes_t, FRUGAL_DTYPE_FLOAT8_E5M2, {4, 32});
  a.quantized(FRUGAL_SCALING_DELAYED, 0, 0, &sa.view);
  b.quantized(FRUGAL_SCALING_CURRENT, 0, 0, &sb.view);
  Tensor d(g_input, FRUGAL_DTYPE_BFLOAT16, {8, 4});
  frugal_quant_gemm_args args{sizeof(frugal_quant_gemm_args), &a.view, &b.view, &d.view, nullptr, 0.5f, 0};
  const std::string seen = echo_of(frugal_quantizer_gemm(q.get(), &args));
  CHECK(seen.find(view_text("a", 8, 32, 32, g_codes)) != std::string::npos);
  CHECK(seen.find(view_text("b.scale_inv", 1, 1, 1, g_scales + 1)) != std::string::npos);
  CHECK(seen.find(" alpha=0.5 flags=0") != std::string::npos);

  SECTION("bad operands") {
    Tensor k_mismatch(g_codes_t, FRUGAL_DTYPE_FLOAT8_E4M3FN, {4, 16});
    k_mismatch.quantized(FRUGAL_SCALING_DELAYED, 0, 0, &sb.view);
    args.b = &k_mismatch.view;
    expect_error(frugal_quantizer_gemm(q.get(), &args), FRUGAL_ERR_INVALID_ARGUMENT, {"8 x 32", "4 x 16", "k"});
    Tensor e5(g_codes, FRUGAL_DTYPE_FLOAT8_E5M2, {8, 32});
    e5.quantized(FRUGAL_SCALING_DELAYED, 0, 0, &sa.view);
    args = {sizeof(frugal_quant_gemm_args), &e5.view, &b.view, &d.view, nullptr, 1.0f, 0};
    expect_error(frugal_quantizer_gemm(q.get(), &args), FRUGAL_ERR_UNSUPPORTED, {"both float8_e5m2"});
    Tensor blocky(g_codes, FRUGAL_DTYPE_FLOAT8_E4M3FN, {8, 32});
    Tensor grid(g_scales, FRUGAL_DTYPE_FLOAT32, {8});
    blocky.quantized(FRUGAL_SCALING_PER_CHANNEL, 1, 0, &grid.view);
    args = {sizeof(frugal_quant_gemm_args), &blocky.view, &b.view, &d.view, nullptr, 1.0f, 0};
    expect_error(frugal_quantizer_gemm(q.get(), &args), FRUGAL_ERR_UNSUPPORTED, {"a has per_channel scaling"});
    Tensor f32(g_input, FRUGAL_DTYPE_FLOAT32, {8, 32});
    args = {sizeof(frugal_quant_gemm_args), &f32.view, &b.view, &d.view, nullptr, 1.0f, 0};
    expect_error(frugal_quantizer_gemm(q.get(), &args), FRUGAL_ERR_UNSUPPORTED, {"a has dtype float32"});
  }
  SECTION("bad outputs and arguments") {
    Tensor d_wrong(g_input, FRUGAL_DTYPE_FLOAT32, {4, 8});
    args.d = &d_wrong.view;
    expect_error(frugal_quantizer_gemm(q.get(), &args), FRUGAL_ERR_INVALID_ARGUMENT, {"d", "4 x 8", "8 x 4"});
    Tensor d_fp8(g_input, FRUGAL_DTYPE_FLOAT8_E4M3FN, {8, 4});
    args.d = &d_fp8.view;
    expect_error(frugal_quantizer_gemm(q.get(), &args), FRUGAL_ERR_INVALID_ARGUMENT, {"quant->scale"});
    Tensor d_amax(g_amax, FRUGAL_DTYPE_FLOAT32, {1});
    d_fp8.quantized(FRUGAL_SCALING_DELAYED, 0, 0, nullptr, &sa.view, &d_amax.view);
    const std::string fp8_out = echo_of(frugal_quantizer_gemm(q.get(), &args));
    CHECK(fp8_out.find(view_text("d.scale", 1, 1, 1, g_scales)) != std::string::npos);
    CHECK(fp8_out.find(view_text("d.amax", 1, 1, 1, g_amax)) != std::string::npos);
    args.d = &d.view;
    args.alpha = std::numeric_limits<float>::infinity();
    expect_error(frugal_quantizer_gemm(q.get(), &args), FRUGAL_ERR_INVALID_ARGUMENT, {"alpha", "finite"});
    args.alpha = 1.0f;
    args.flags = 2;
    expect_error(frugal_quantizer_gemm(q.get(), &args), FRUGAL_ERR_INVALID_ARGUMENT, {"flags"});
  }
  SECTION("a strategy without gemm") {
    auto nogemm = make_probe(context.get(), "delayed", "e4m3", nullptr, "probe_quant_nogemm");
    expect_error(frugal_quantizer_gemm(nogemm.get(), &args), FRUGAL_ERR_UNIMPLEMENTED, {"no GEMM"});
  }
}

TEST_CASE("a plugin's invalid layout is refused at creation, naming what is wrong") {
  auto context = probe_context();
  struct Case {
    const char* fault;
    const char* mention;
  };
  for (const Case c :
       {Case{"bad_dtype", "element dtype float32"}, Case{"bad_mode", "scaling mode 9"},
        Case{"mx_fp32", "mx scaling with float32 scales"}, Case{"tensor_blocks", "current scaling with 1 x 32 blocks"},
        Case{"zp_fp8", "zero point on a non-INT8"}}) {
    INFO(c.fault);
    auto options = host::make_options();
    host::check(frugal_options_set_string(options.get(), "fault", c.fault));
    frugal_quantizer* q = nullptr;
    expect_error(frugal_quantizer_create(context.get(), "probe_quant", options.get(), &q), FRUGAL_ERR_INTERNAL,
                 {"quantizer 'probe_quant'", "invalid layout", c.mention});
    CHECK(q == nullptr);
  }
}

TEST_CASE("export_state sizes, short buffers and lying plugins; import_state errors pass through") {
  auto context = probe_context();
  auto q = make_probe(context.get(), "delayed");
  size_t size = 0;
  host::check(frugal_quantizer_export_state(q.get(), nullptr, 0, &size));
  CHECK(size == 5);
  char small[3];
  size = 0;
  expect_error(frugal_quantizer_export_state(q.get(), small, sizeof small, &size), FRUGAL_ERR_OUT_OF_RANGE,
               {"5 bytes"});
  CHECK(size == 5);  // reported even on failure, so the caller can retry
  char blob[16];
  host::check(frugal_quantizer_export_state(q.get(), blob, sizeof blob, &size));
  CHECK(std::string(blob, size) == "probe");
  host::check(frugal_quantizer_import_state(q.get(), blob, size));
  expect_error(frugal_quantizer_import_state(q.get(), blob, 4), FRUGAL_ERR_DATA_CORRUPTED,
               {"quantizer 'probe_quant'", "not a probe state"});
  expect_error(frugal_quantizer_import_state(q.get(), nullptr, 4), FRUGAL_ERR_INVALID_ARGUMENT, {"data"});
  expect_error(frugal_quantizer_export_state(q.get(), nullptr, 8, &size), FRUGAL_ERR_INVALID_ARGUMENT,
               {"buffer is NULL"});
  auto liar = make_probe(context.get(), "delayed", "e4m3", "overwrite");
  expect_error(frugal_quantizer_export_state(liar.get(), blob, sizeof blob, &size), FRUGAL_ERR_INTERNAL,
               {"17 bytes written into a 16-byte buffer"});
}

TEST_CASE("quantizer entry points refuse NULL arguments and unknown strategies") {
  auto context = probe_context();
  frugal_quantizer* q = nullptr;
  expect_error(frugal_quantizer_create(context.get(), "no_such_quantizer", nullptr, &q), FRUGAL_ERR_NOT_FOUND,
               {"no_such_quantizer"});
  expect_error(frugal_quantizer_create(context.get(), "probe_quant", nullptr, nullptr), FRUGAL_ERR_INVALID_ARGUMENT,
               {"out"});
  expect_error(frugal_quantizer_quantize(nullptr, nullptr), FRUGAL_ERR_INVALID_ARGUMENT, {"quantizer"});
  auto probe = make_probe(context.get(), "delayed");
  expect_error(frugal_quantizer_quantize(probe.get(), nullptr), FRUGAL_ERR_INVALID_ARGUMENT, {"args"});
  expect_error(frugal_quantizer_dequantize(probe.get(), nullptr), FRUGAL_ERR_INVALID_ARGUMENT, {"args"});
  const frugal_dequantize_args no_input{sizeof(frugal_dequantize_args), nullptr, nullptr, nullptr};
  expect_error(frugal_quantizer_dequantize(probe.get(), &no_input), FRUGAL_ERR_INVALID_ARGUMENT, {"input"});
  const frugal_dequantize_args tiny{8, nullptr, nullptr, nullptr};
  expect_error(frugal_quantizer_dequantize(probe.get(), &tiny), FRUGAL_ERR_ABI_MISMATCH, {"args"});
  expect_error(frugal_quantizer_gemm(probe.get(), nullptr), FRUGAL_ERR_INVALID_ARGUMENT, {"args"});
  frugal_quantizer_destroy(nullptr);  // allowed
}
