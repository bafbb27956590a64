#include "cuda/cuda_support.hpp"

#include "frugal/tensor.h"

namespace frugal::quant::cuda {

bool built_with_cuda() noexcept { return true; }

namespace detail {

void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  throw CudaFailure(std::string(what) + ": " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status));
}

void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

int device_of(const void* pointer, const char* role) {
  cudaPointerAttributes attributes{};
  check(cudaPointerGetAttributes(&attributes, pointer), "cudaPointerGetAttributes");
  if (attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged) {
    throw UnsupportedDevice(std::string("quant_fp8 CUDA: the ") + role + " is not CUDA device memory");
  }
  return attributes.device;
}

DeviceGuard::DeviceGuard(int device) {
  check(cudaGetDevice(&previous_), "cudaGetDevice");
  if (previous_ != device) {
    check(cudaSetDevice(device), "cudaSetDevice");
    changed_ = true;
  }
}

DeviceGuard::~DeviceGuard() {
  if (changed_) static_cast<void>(cudaSetDevice(previous_));
}

StreamScratch::StreamScratch(std::size_t bytes, cudaStream_t stream) : stream_(stream) {
  if (bytes == 0) return;
  int device = 0;
  int pools = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device), "cudaDeviceGetAttribute");
  if (pools != 0) {
    check(cudaMallocAsync(&pointer_, bytes, stream), "cudaMallocAsync");
    async_ = true;
  } else {
    check(cudaMalloc(&pointer_, bytes), "cudaMalloc");
  }
}

StreamScratch::~StreamScratch() {
  if (pointer_ == nullptr) return;
  // Errors here would only repeat one already reported by the operation.
  if (async_) {
    static_cast<void>(cudaFreeAsync(pointer_, stream_));
  } else {
    // cudaFree waits for the device, so queued kernels finish first.
    static_cast<void>(cudaFree(pointer_));
  }
}

int multiprocessor_count() {
  int device = 0;
  int count = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  return count > 0 ? count : 1;
}

std::size_t dtype_size(std::int32_t dtype) noexcept {
  switch (dtype) {
    case FRUGAL_DTYPE_FLOAT32: return 4;
    case FRUGAL_DTYPE_FLOAT16:
    case FRUGAL_DTYPE_BFLOAT16: return 2;
    case FRUGAL_DTYPE_FLOAT8_E4M3FN:
    case FRUGAL_DTYPE_FLOAT8_E5M2:
    case FRUGAL_DTYPE_FLOAT8_E8M0FNU:
    case FRUGAL_DTYPE_INT8:
    case FRUGAL_DTYPE_UINT8: return 1;
    default: return 0;
  }
}

const char* dtype_name(std::int32_t dtype) noexcept {
  switch (dtype) {
    case FRUGAL_DTYPE_FLOAT32: return "float32";
    case FRUGAL_DTYPE_FLOAT16: return "float16";
    case FRUGAL_DTYPE_BFLOAT16: return "bfloat16";
    case FRUGAL_DTYPE_FLOAT64: return "float64";
    case FRUGAL_DTYPE_FLOAT8_E4M3FN: return "float8_e4m3fn";
    case FRUGAL_DTYPE_FLOAT8_E5M2: return "float8_e5m2";
    case FRUGAL_DTYPE_FLOAT8_E8M0FNU: return "float8_e8m0fnu";
    case FRUGAL_DTYPE_INT8: return "int8";
    case FRUGAL_DTYPE_UINT8: return "uint8";
    default: return "unknown dtype";
  }
}

}  // namespace detail
}  // namespace frugal::quant::cuda
