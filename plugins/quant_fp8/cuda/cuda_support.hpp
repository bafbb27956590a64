// Host-side helpers of quant_fp8's CUDA path: the plugins' shared CUDA
// plumbing (plugins/cuda_support: error checks that throw CudaFailure, the
// device a pointer lives on, a scoped current device, stream-ordered
// scratch memory) under detail::, the SDK's dtype sizes and names for the
// .cu files, and the amax shared between the .cu files and gemm.cpp.
// Internal to cuda/; compiles with the host compiler and with nvcc.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "cuda/cuda_ops.hpp"
#include "cuda_support/cuda_support.hpp"

namespace frugal::quant::cuda::detail {

using plugin_cuda::aligned;
using plugin_cuda::check;
using plugin_cuda::check_launch;
using plugin_cuda::device_of;
using plugin_cuda::DeviceGuard;
using plugin_cuda::multiprocessors;
using plugin_cuda::StreamScratch;

// Bytes of one element of a frugal dtype (0 for an unknown one), and its
// name for messages ("float32", "float8_e4m3fn", ...): the SDK's
// sdk::dtype_size and sdk::dtype_name (frugal/sdk/tensor_view.hpp).
std::size_t dtype_size(std::int32_t dtype) noexcept;
const char* dtype_name(std::int32_t dtype) noexcept;

// Writes the NaN-propagating amax of m (fp32, fp16 or bf16) to `out` (one
// fp32 in device memory), queued on `stream`. Implemented in quantize.cu.
void launch_matrix_amax(const ops::Matrix& m, float* out, cudaStream_t stream);

}  // namespace frugal::quant::cuda::detail
