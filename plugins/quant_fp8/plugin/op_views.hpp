// The core's normalised 2-D tensors (quantizer_vtable.h: byte_offset folded
// into data, strides never NULL, strides[1] == 1) turned into the resolved
// operations of ops/quant_op.hpp.
#pragma once

#include "frugal/quantizer_vtable.h"
#include "ops/quant_op.hpp"
#include "plugin/config.hpp"

namespace frugal::quant::plugin {

// A quantize call resolved. Not copyable: op points at the matrices inside.
class QuantizeCall {
 public:
  QuantizeCall(const QuantConfig& config, const frugal_quantize_call& args);
  QuantizeCall(const QuantizeCall&) = delete;
  QuantizeCall& operator=(const QuantizeCall&) = delete;

  ops::QuantizeOp op;

 private:
  ops::Matrix output_t_;
  ops::Matrix fake_;
};

[[nodiscard]] ops::DequantizeOp dequantize_op(const QuantConfig& config, const frugal_dequantize_call& args);
[[nodiscard]] ops::GemmOp gemm_op(const QuantConfig& config, const frugal_quant_gemm_call& args);

}  // namespace frugal::quant::plugin
