// Host-side plumbing of router_moe's CUDA path: the plugins' shared CUDA
// plumbing (plugins/cuda_support: check(), OnDeviceOf, StreamScratch, ...)
// under detail::, and row_launch(), the shape of a one-warp-per-token
// kernel. Internal to cuda/; compiles with the host compiler and with nvcc.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "cuda/cuda_ops.hpp"
#include "cuda_support/cuda_support.hpp"

namespace frugal::router::cuda::detail {

using plugin_cuda::check;
using plugin_cuda::check_launch;
using plugin_cuda::device_attribute;
using plugin_cuda::multiprocessors;
using plugin_cuda::OnDeviceOf;
using plugin_cuda::StreamScratch;

// The launch of a kernel that gives each token one warp and `floats` fp32
// values of shared memory: up to 8 warps a block (consecutive tokens),
// fewer when rows are long. Raises the kernel's shared-memory limit to the
// device's when it needs more than the default 48 KiB; throws
// UnsupportedDevice naming `router` when one row does not fit a block.
struct RowLaunch {
  unsigned blocks = 0;
  unsigned threads = 0;
  std::size_t shared = 0;
};
RowLaunch row_launch(std::int64_t tokens, std::int64_t floats, const char* router, const void* kernel);

}  // namespace frugal::router::cuda::detail
