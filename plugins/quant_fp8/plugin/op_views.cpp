#include "plugin/op_views.hpp"

#include <cstddef>
#include <string>
#include <tuple>
#include <utility>

#include "frugal/sdk/plugin_support.hpp"

namespace frugal::quant::plugin {
namespace {

using sdk::PluginError;

const frugal_tensor& tensor(const frugal_tensor* t, const char* role) {
  if (t == nullptr) throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, std::string(role) + " is NULL");
  return *t;
}

// The core has folded byte_offset into data and filled strides, so the
// view is the tensor's fields as they are.
ops::Matrix matrix_of(const frugal_tensor& t) { return {{t.data, t.shape[0], t.shape[1], t.strides[0]}, t.dtype}; }

// The tensor's quant meta; `quant` lies past FRUGAL_TENSOR_MIN_SIZE, so a
// smaller struct has none.
const frugal_quant_meta* quant_of(const frugal_tensor& t) {
  return t.struct_size > offsetof(frugal_tensor, quant) ? t.quant : nullptr;
}

const frugal_quant_meta& require_quant(const frugal_tensor& t, const char* role) {
  const frugal_quant_meta* q = quant_of(t);
  if (q == nullptr || q->scale_inv == nullptr)
    throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, std::string(role) + ": quant with scale_inv is required");
  return *q;
}

void* data_of(const frugal_tensor* t) { return t != nullptr ? t->data : nullptr; }

std::int8_t* zero_point_of(const frugal_quant_meta& q) {
  for (const frugal_ext_header* e = q.ext; e != nullptr; e = e->next) {
    if (e->type == FRUGAL_EXT_QUANT_ZERO_POINT && e->struct_size >= sizeof(frugal_quant_zero_point_ext))
      return static_cast<std::int8_t*>(data_of(reinterpret_cast<const frugal_quant_zero_point_ext*>(e)->zero_point));
  }
  return nullptr;
}

ops::ScaleOutputs scales_of(const frugal_quant_meta* q) {
  if (q == nullptr) return {};
  return {data_of(q->scale_inv), static_cast<float*>(data_of(q->scale)), zero_point_of(*q),
          static_cast<float*>(data_of(q->amax))};
}

// The layout's block extents for a rows x cols tensor, 0 resolved to the dimension.
std::pair<std::int64_t, std::int64_t> extents(const QuantConfig& config, const ops::Matrix& m) {
  const frugal_quant_layout l = layout_of(config);
  return {l.block_rows == 0 ? m.rows() : l.block_rows, l.block_cols == 0 ? m.cols() : l.block_cols};
}

}  // namespace

QuantizeCall::QuantizeCall(const QuantConfig& config, const frugal_quantize_call& args) {
  op.input = matrix_of(tensor(args.input, "input"));
  const frugal_tensor& output = tensor(args.output, "output");
  op.output = matrix_of(output);
  op.format = config.format;
  op.saturate = config.saturate;
  op.recipe = config.recipe;
  std::tie(op.block_rows, op.block_cols) = extents(config, op.input);
  op.scales = scales_of(&require_quant(output, "output"));
  if (args.output_t != nullptr) {
    output_t_ = matrix_of(*args.output_t);
    op.output_t = &output_t_;
    op.scales_t = scales_of(quant_of(*args.output_t));
  }
  if (args.fake != nullptr) {
    fake_ = matrix_of(*args.fake);
    op.fake = &fake_;
  }
  op.stream = args.stream;
  op.threads = config.threads;
}

ops::DequantizeOp dequantize_op(const QuantConfig& config, const frugal_dequantize_call& args) {
  ops::DequantizeOp op;
  const frugal_tensor& input = tensor(args.input, "input");
  op.input = matrix_of(input);
  op.output = matrix_of(tensor(args.output, "output"));
  op.format = config.format;
  op.recipe = config.recipe;
  std::tie(op.block_rows, op.block_cols) = extents(config, op.input);
  const frugal_quant_meta& q = require_quant(input, "input");
  op.scale_inv = q.scale_inv->data;
  op.zero_point = zero_point_of(q);
  if (config.format == ops::ElementFormat::int8_asym && op.zero_point == nullptr)
    throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "input: int8_asym codes need their zero points");
  op.stream = args.stream;
  op.threads = config.threads;
  return op;
}

ops::GemmOp gemm_op(const QuantConfig& config, const frugal_quant_gemm_call& args) {
  ops::GemmOp op;
  const frugal_tensor& a = tensor(args.a, "a");
  const frugal_tensor& b = tensor(args.b, "b");
  const frugal_tensor& d = tensor(args.d, "d");
  op.a = matrix_of(a);
  op.b = matrix_of(b);
  op.d = matrix_of(d);
  op.scale_inv_a = static_cast<const float*>(require_quant(a, "a").scale_inv->data);
  op.scale_inv_b = static_cast<const float*>(require_quant(b, "b").scale_inv->data);
  // An FP8 d carries its output scale and, optionally, the amax slot.
  if (const frugal_quant_meta* q = quant_of(d)) {
    op.d_scale = static_cast<const float*>(data_of(q->scale));
    op.d_amax = static_cast<float*>(data_of(q->amax));
  }
  op.alpha = args.alpha;
  op.fast_accum = (args.flags & FRUGAL_GEMM_FAST_ACCUM) != 0;
  op.stream = args.stream;
  op.threads = config.threads;
  return op;
}

}  // namespace frugal::quant::plugin
