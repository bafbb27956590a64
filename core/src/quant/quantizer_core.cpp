#include "quant/quantizer_core.hpp"

#include <fmt/format.h>
#include <cmath>

#include "error.hpp"
#include "frugal/managed_tensor.h"
#include "plugin_call.hpp"
#include "quant/quant_tensors.hpp"
#include "sized_structs.hpp"

namespace frugal::quant {
namespace {

bool is_float_input(int32_t dtype) {
  return dtype == FRUGAL_DTYPE_FLOAT32 || dtype == FRUGAL_DTYPE_BFLOAT16 || dtype == FRUGAL_DTYPE_FLOAT16;
}

bool is_fp8(int32_t dtype) { return dtype == FRUGAL_DTYPE_FLOAT8_E4M3FN || dtype == FRUGAL_DTYPE_FLOAT8_E5M2; }

bool is_per_tensor(int32_t mode) { return mode == FRUGAL_SCALING_DELAYED || mode == FRUGAL_SCALING_CURRENT; }

void require_float(const Matrix2D& m, const char* role) {
  if (!is_float_input(m.view.dtype))
    fail(FRUGAL_ERR_UNSUPPORTED, "{}: dtype {}; expected float32, bfloat16 or float16", role,
         frugal_dtype_name(m.view.dtype));
}

void require_shape(const Matrix2D& m, const char* role, int64_t rows, int64_t cols, const char* why) {
  if (m.rows() != rows || m.cols() != cols)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: {} x {} (as rows x columns); expected {} x {} ({})", role, m.rows(),
         m.cols(), rows, cols, why);
}

// The quantize call as the plugin sees it: a local of the entry point,
// never copied or moved, since the views point into it.
struct QuantizeCall {
  Matrix2D input, output, output_t, fake;
  PluginMeta meta, meta_t;
  frugal_quantize_call args{};
};

// The dequantize / GEMM counterparts.
struct DequantizeCall {
  Matrix2D input, output;
  PluginMeta meta;
  frugal_dequantize_call args{};
};

struct GemmCall {
  Matrix2D a, b, d;
  PluginMeta meta_a, meta_b, meta_d;
  frugal_quant_gemm_call args{};
};

// GEMM operands are per-tensor scaled: their layout is implied by their
// own quant meta, not by the quantizer's.
frugal_quant_layout per_tensor_layout(int32_t dtype, int32_t mode) {
  return frugal_quant_layout{sizeof(frugal_quant_layout), dtype, mode, 0, 0, FRUGAL_DTYPE_FLOAT32, 0};
}

void gemm_operand_meta(const Matrix2D& m, const frugal_tensor* raw, const char* role, PluginMeta& out) {
  const frugal_quant_meta* q = read_sized(raw).quant;
  if (q == nullptr) fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: quant is NULL; FP8 operands carry scale_inv", role);
  const int32_t mode = read_sized(q).scaling_mode;
  if (!is_per_tensor(mode))
    fail(FRUGAL_ERR_UNSUPPORTED, "gemm: {} has {} scaling; the FP8 GEMM takes per-tensor (delayed or current) scales",
         role, scaling_mode_name(mode));
  to_plugin_meta(q, role, per_tensor_layout(m.view.dtype, mode), m.rows(), m.cols(), out);
  require_meta_on(out, role, m);
}

}  // namespace

QuantizerCore::QuantizerCore(std::shared_ptr<LoadedPlugin> plugin, const StrategyRecord& record,
                             const std::string& strategy)
    : instance_(std::move(plugin), record, fmt::format("quantizer '{}'", strategy)) {}

void QuantizerCore::create_instance(const frugal_options* options) {
  instance_.create(options);
  frugal_quant_layout layout{};
  layout.struct_size = sizeof(layout);
  instance_.call(&frugal_quantizer_vtable::layout, &layout);
  layout_ = layout;
  check_layout();
}

// A wrong layout would make every later scale-shape check wrong, so it is
// refused at creation.
void QuantizerCore::check_layout() const {
  const auto& l = layout_;
  const auto bad = [&](const std::string& what) {
    fail(FRUGAL_ERR_INTERNAL, "{}: the plugin reported an invalid layout: {}", instance_.label(), what);
  };
  if (!is_fp8(l.dtype) && l.dtype != FRUGAL_DTYPE_INT8)
    bad(fmt::format("element dtype {} is not float8_e4m3fn, float8_e5m2 or int8", frugal_dtype_name(l.dtype)));
  if (l.scaling_mode < FRUGAL_SCALING_DELAYED || l.scaling_mode > FRUGAL_SCALING_MX)
    bad(fmt::format("scaling mode {}", l.scaling_mode));
  if (l.block_rows < 0 || l.block_cols < 0) bad(fmt::format("block {} x {}", l.block_rows, l.block_cols));
  const int32_t want_scale = l.scaling_mode == FRUGAL_SCALING_MX ? FRUGAL_DTYPE_FLOAT8_E8M0FNU : FRUGAL_DTYPE_FLOAT32;
  if (l.scale_dtype != want_scale)
    bad(fmt::format("{} scaling with {} scales", scaling_mode_name(l.scaling_mode), frugal_dtype_name(l.scale_dtype)));
  if (is_per_tensor(l.scaling_mode) && (l.block_rows != 0 || l.block_cols != 0))
    bad(fmt::format("{} scaling with {} x {} blocks (per-tensor is 0 x 0)", scaling_mode_name(l.scaling_mode),
                    l.block_rows, l.block_cols));
  if ((l.flags & FRUGAL_QUANT_LAYOUT_ZERO_POINT) != 0 && l.dtype != FRUGAL_DTYPE_INT8)
    bad("a zero point on a non-INT8 format");
  if ((l.flags & ~FRUGAL_QUANT_LAYOUT_ZERO_POINT) != 0) bad(fmt::format("unknown flags {:#x}", l.flags));
}

void QuantizerCore::quantize(const frugal_quantize_args& raw_args) {
  require_size(&raw_args, offsetof(frugal_quantize_args, output) + sizeof(void*), "args");
  const frugal_quantize_args a = read_sized(&raw_args);
  QuantizeCall c;
  to_matrix(a.input, "input", c.input);
  require_float(c.input, "input");
  const int64_t rows = c.input.rows();
  const int64_t cols = c.input.cols();
  to_matrix(a.output, "output", c.output);
  if (c.output.view.dtype != layout_.dtype)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "output: dtype {}; this quantizer makes {}",
         frugal_dtype_name(c.output.view.dtype), frugal_dtype_name(layout_.dtype));
  require_shape(c.output, "output", rows, cols, "the input's shape");
  require_same_device(c.input, "input", c.output, "output");
  to_plugin_meta(read_sized(a.output).quant, "output", layout_, rows, cols, c.meta);
  require_meta_on(c.meta, "output", c.input);
  c.output.view.quant = &c.meta.meta;
  c.args.struct_size = sizeof(frugal_quantize_call);
  c.args.input = &c.input.view;
  c.args.output = &c.output.view;
  if (a.output_t != nullptr) {
    if (!is_per_tensor(layout_.scaling_mode))
      fail(FRUGAL_ERR_UNSUPPORTED,
           "output_t: the fused cast-transpose needs per-tensor (delayed or current) scaling; this quantizer uses {}",
           scaling_mode_name(layout_.scaling_mode));
    to_matrix(a.output_t, "output_t", c.output_t);
    if (c.output_t.view.dtype != layout_.dtype)
      fail(FRUGAL_ERR_INVALID_ARGUMENT, "output_t: dtype {}; this quantizer makes {}",
           frugal_dtype_name(c.output_t.view.dtype), frugal_dtype_name(layout_.dtype));
    require_shape(c.output_t, "output_t", cols, rows, "the input transposed");
    require_same_device(c.input, "input", c.output_t, "output_t");
    const frugal_quant_meta* qt = read_sized(a.output_t).quant;
    if (qt != nullptr) {
      to_plugin_meta(qt, "output_t", layout_, cols, rows, c.meta_t);
      require_meta_on(c.meta_t, "output_t", c.input);
      c.output_t.view.quant = &c.meta_t.meta;
    }
    c.args.output_t = &c.output_t.view;
  }
  if (a.fake != nullptr) {
    to_matrix(a.fake, "fake", c.fake);
    if (c.fake.view.dtype != c.input.view.dtype)
      fail(FRUGAL_ERR_INVALID_ARGUMENT, "fake: dtype {}; it must be the input's ({})",
           frugal_dtype_name(c.fake.view.dtype), frugal_dtype_name(c.input.view.dtype));
    require_shape(c.fake, "fake", rows, cols, "the input's shape");
    require_same_device(c.input, "input", c.fake, "fake");
    c.args.fake = &c.fake.view;
  }
  c.args.stream = a.stream;
  c.args.flags = a.flags;
  if ((a.flags & ~FRUGAL_QUANTIZE_FREEZE_SCALE) != 0)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "args->flags has unknown bits {:#x}", a.flags & ~FRUGAL_QUANTIZE_FREEZE_SCALE);
  instance_.call(&frugal_quantizer_vtable::quantize, &c.args);
}

void QuantizerCore::dequantize(const frugal_dequantize_args& raw_args) {
  require_size(&raw_args, offsetof(frugal_dequantize_args, output) + sizeof(void*), "args");
  const frugal_dequantize_args a = read_sized(&raw_args);
  const frugal_tensor* input = a.input;
  const frugal_tensor* output = a.output;
  DequantizeCall c;
  to_matrix(input, "input", c.input);
  if (c.input.view.dtype != layout_.dtype)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "input: dtype {}; this quantizer reads {}", frugal_dtype_name(c.input.view.dtype),
         frugal_dtype_name(layout_.dtype));
  to_plugin_meta(read_sized(input).quant, "input", layout_, c.input.rows(), c.input.cols(), c.meta);
  require_meta_on(c.meta, "input", c.input);
  c.input.view.quant = &c.meta.meta;
  to_matrix(output, "output", c.output);
  require_float(c.output, "output");
  require_shape(c.output, "output", c.input.rows(), c.input.cols(), "the input's shape");
  require_same_device(c.input, "input", c.output, "output");
  c.args = {sizeof(frugal_dequantize_call), &c.input.view, &c.output.view, a.stream};
  instance_.call(&frugal_quantizer_vtable::dequantize, &c.args);
}

void QuantizerCore::gemm(const frugal_quant_gemm_args& raw_args) {
  require_size(&raw_args, offsetof(frugal_quant_gemm_args, d) + sizeof(void*), "args");
  if (instance_.vtable().gemm == nullptr)
    fail(FRUGAL_ERR_UNIMPLEMENTED, "{}: this quantizer has no GEMM", instance_.label());
  frugal_quant_gemm_args a = read_sized(&raw_args);
  if (raw_args.struct_size < offsetof(frugal_quant_gemm_args, alpha) + sizeof(float)) a.alpha = 1.0f;
  GemmCall c;
  to_matrix(a.a, "a", c.a);
  to_matrix(a.b, "b", c.b);
  to_matrix(a.d, "d", c.d);
  for (const auto* m : {&c.a, &c.b})
    if (!is_fp8(m->view.dtype))
      fail(FRUGAL_ERR_UNSUPPORTED, "gemm: {} has dtype {}; the operands must be float8_e4m3fn or float8_e5m2",
           m == &c.a ? "a" : "b", frugal_dtype_name(m->view.dtype));
  if (c.a.view.dtype == FRUGAL_DTYPE_FLOAT8_E5M2 && c.b.view.dtype == FRUGAL_DTYPE_FLOAT8_E5M2)
    fail(FRUGAL_ERR_UNSUPPORTED, "gemm: a and b are both float8_e5m2; at least one must be float8_e4m3fn");
  const int64_t m = c.a.rows();
  const int64_t k = c.a.cols();
  const int64_t n = c.b.rows();
  if (c.b.cols() != k)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "gemm: a is {} x {} and b is {} x {}; D = A B^T needs equal inner extents (k)", m,
         k, n, c.b.cols());
  require_shape(c.d, "d", m, n, "rows of a x rows of b");
  require_same_device(c.a, "a", c.b, "b");
  require_same_device(c.a, "a", c.d, "d");
  gemm_operand_meta(c.a, a.a, "a", c.meta_a);
  gemm_operand_meta(c.b, a.b, "b", c.meta_b);
  c.a.view.quant = &c.meta_a.meta;
  c.b.view.quant = &c.meta_b.meta;
  const int32_t dt = c.d.view.dtype;
  if (is_fp8(dt)) {
    const frugal_quant_meta* q = read_sized(a.d).quant;
    if (q == nullptr || read_sized(q).scale == nullptr)
      fail(FRUGAL_ERR_INVALID_ARGUMENT, "gemm: d is {}; it needs quant->scale (one fp32) for the output cast",
           frugal_dtype_name(dt));
    frugal_quant_meta dq = read_sized(q);
    if (!is_per_tensor(dq.scaling_mode))
      fail(FRUGAL_ERR_UNSUPPORTED, "gemm: d has {} scaling; an FP8 output takes one per-tensor scale",
           scaling_mode_name(dq.scaling_mode));
    // The GEMM reads d's scale and writes its amax; scale_inv is the host's
    // to fill later, so it is optional here: the scale stands in for the
    // required slot.
    if (dq.scale_inv == nullptr) dq.scale_inv = dq.scale;
    to_plugin_meta(&dq, "d", per_tensor_layout(dt, dq.scaling_mode), m, n, c.meta_d);
    require_meta_on(c.meta_d, "d", c.a);
    c.d.view.quant = &c.meta_d.meta;
  } else if (dt != FRUGAL_DTYPE_FLOAT32 && dt != FRUGAL_DTYPE_BFLOAT16) {
    fail(FRUGAL_ERR_UNSUPPORTED, "gemm: d has dtype {}; expected float32, bfloat16, float8_e4m3fn or float8_e5m2",
         frugal_dtype_name(dt));
  }
  if (!std::isfinite(a.alpha)) fail(FRUGAL_ERR_INVALID_ARGUMENT, "gemm: alpha is {}; it must be finite", a.alpha);
  if ((a.flags & ~FRUGAL_GEMM_FAST_ACCUM) != 0)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "gemm: args->flags has unknown bits {:#x}", a.flags & ~FRUGAL_GEMM_FAST_ACCUM);
  c.args = {sizeof(frugal_quant_gemm_call), &c.a.view, &c.b.view, &c.d.view, a.stream, a.alpha, a.flags};
  instance_.call(&frugal_quantizer_vtable::gemm, &c.args);
}

void QuantizerCore::export_state(void* buffer, std::size_t capacity, std::size_t* size) {
  instance_.export_state(buffer, capacity, size);
}

void QuantizerCore::import_state(const void* data, std::size_t size) { instance_.import_state(data, size); }

}  // namespace frugal::quant
