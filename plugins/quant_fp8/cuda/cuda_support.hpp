// Host-side helpers of the CUDA path: error checks that throw CudaFailure,
// the device a pointer lives on, a scoped current device, stream-ordered
// scratch memory, and the ops shared between the .cu files and gemm.cpp.
// Internal to cuda/; compiles with the host compiler and with nvcc.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "cuda/cuda_ops.hpp"

namespace frugal::quant::cuda::detail {

// Throws CudaFailure("<what>: <error name>: <error string>") unless ok.
void check(cudaError_t status, const char* what);

// Throws CudaFailure for the error the last kernel launch left, if any.
void check_launch(const char* kernel);

// The device of a device (or managed) pointer; throws UnsupportedDevice
// naming `role` when it is host memory.
int device_of(const void* pointer, const char* role);

// Makes `device` current for the scope and restores the previous one.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
  bool changed_ = false;
};

// Device memory for one operation, ordered on its stream: allocated with
// cudaMallocAsync and released with cudaFreeAsync, so nothing waits (a
// device without memory pools falls back to cudaMalloc / cudaFree).
class StreamScratch {
 public:
  StreamScratch(std::size_t bytes, cudaStream_t stream);
  ~StreamScratch();
  StreamScratch(const StreamScratch&) = delete;
  StreamScratch& operator=(const StreamScratch&) = delete;

  [[nodiscard]] void* get() const noexcept { return pointer_; }

 private:
  void* pointer_ = nullptr;
  cudaStream_t stream_ = nullptr;
  bool async_ = false;
};

// Multiprocessors of the current device.
int multiprocessor_count();

// True when `pointer` is a multiple of `bytes` (a power of two).
inline bool aligned(const void* pointer, std::size_t bytes) noexcept {
  return (reinterpret_cast<std::uintptr_t>(pointer) & (bytes - 1)) == 0;
}

// Bytes of one element of a frugal dtype (0 for an unknown one).
std::size_t dtype_size(std::int32_t dtype) noexcept;
// "float32", "e4m3", ... for messages.
const char* dtype_name(std::int32_t dtype) noexcept;

// Writes the NaN-propagating amax of m (fp32, fp16 or bf16) to `out` (one
// fp32 in device memory), queued on `stream`. Implemented in quantize.cu.
void launch_matrix_amax(const ops::Matrix& m, float* out, cudaStream_t stream);

}  // namespace frugal::quant::cuda::detail
