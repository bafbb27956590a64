// The CUDA implementation of quant_op.hpp's operations. Plain C++ header (no
// CUDA types), so the plugin glue compiles without nvcc. In a build without
// CUDA every function throws UnsupportedDevice.
#pragma once

#include <string>

#include "cuda_support/device_errors.hpp"
#include "ops/quant_op.hpp"

namespace frugal::quant::cuda {

// The device path's two failures, shared by the plugins with kernels
// (plugins/cuda_support/device_errors.hpp).
using plugin_cuda::CudaFailure;
using plugin_cuda::UnsupportedDevice;

// True when this build has the CUDA kernels.
bool built_with_cuda() noexcept;

// Queues the op on op.stream. When host_amax is not null, waits for the
// stream and stores the whole input's amax there (the delayed recipe needs
// it on the host); otherwise nothing synchronises.
void quantize_cuda(const ops::QuantizeOp& op, float* host_amax);
void dequantize_cuda(const ops::DequantizeOp& op);
// cuBLASLt, TN layout, per-tensor scales as the A/B scale pointers.
void gemm_cuda(const ops::GemmOp& op);

}  // namespace frugal::quant::cuda
