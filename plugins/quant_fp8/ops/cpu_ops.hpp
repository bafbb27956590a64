// The CPU implementation of quant_op.hpp's operations: the reference for the
// CUDA kernels. Multi-threaded over rows / blocks for big tensors.
#pragma once

#include "ops/quant_op.hpp"

namespace frugal::quant::ops {

// Returns the whole input's amax (as also written to op.scales.amax).
float quantize_cpu(const QuantizeOp& op);
void dequantize_cpu(const DequantizeOp& op);
void gemm_cpu(const GemmOp& op);

}  // namespace frugal::quant::ops
