#include "cuda/cuda_support.hpp"

#include <string>

namespace frugal::router::cuda {

bool built_with_cuda() noexcept { return true; }

namespace detail {

void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  throw CudaFailure(std::string("router_moe CUDA: ") + what + ": " + cudaGetErrorName(status) + ": " +
                    cudaGetErrorString(status));
}

OnDeviceOf::OnDeviceOf(const void* pointer, const char* role) {
  cudaPointerAttributes a{};
  check(cudaPointerGetAttributes(&a, pointer), "cudaPointerGetAttributes");
  if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged) {
    throw UnsupportedDevice(std::string("router_moe CUDA: the ") + role + " is not in CUDA device memory");
  }
  int current = 0;
  check(cudaGetDevice(&current), "cudaGetDevice");
  if (current == a.device) return;
  check(cudaSetDevice(a.device), "cudaSetDevice");
  restore_ = current;
}

OnDeviceOf::~OnDeviceOf() {
  if (restore_ >= 0) static_cast<void>(cudaSetDevice(restore_));
}

namespace {

int current_attribute(cudaDeviceAttr attribute, const char* what) {
  int device = 0;
  int value = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&value, attribute, device), what);
  return value;
}

}  // namespace

int multiprocessors() {
  const int sms = current_attribute(cudaDevAttrMultiProcessorCount, "multiprocessor count");
  return sms > 0 ? sms : 1;
}

RowLaunch row_launch(std::int64_t tokens, std::int64_t floats, const char* router, const void* kernel) {
  const auto limit =
      static_cast<std::size_t>(current_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, "shared memory"));
  const auto row_bytes = static_cast<std::size_t>(floats) * sizeof(float);
  std::size_t warps = 8;
  while (warps > 1 && warps * row_bytes > limit) warps /= 2;
  if (warps * row_bytes > limit) {
    throw UnsupportedDevice(std::string("router_moe CUDA: ") + router + " needs " + std::to_string(row_bytes) +
                            " bytes of shared memory per token; a block of this device has " + std::to_string(limit));
  }
  RowLaunch l;
  l.threads = static_cast<unsigned>(32 * warps);
  l.shared = warps * row_bytes;
  const auto per_block = static_cast<std::int64_t>(warps);
  l.blocks = static_cast<unsigned>((tokens + per_block - 1) / per_block);
  constexpr std::size_t kDefaultShared = 48 * 1024;
  if (l.shared > kDefaultShared) {
    // Always the device's limit, never this launch's size: routes on other
    // threads may set the attribute at the same time.
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(limit)),
          "cudaFuncSetAttribute");
  }
  return l;
}

void StreamScratch::allocate() {
  if (bytes_ != 0) {
    pooled_ = current_attribute(cudaDevAttrMemoryPoolsSupported, "memory pool support") != 0;
    check(pooled_ ? cudaMallocAsync(&base_, bytes_, stream_) : cudaMalloc(&base_, bytes_), "scratch allocation");
  }
  for (const auto& place : place_) place(static_cast<char*>(base_));
}

StreamScratch::~StreamScratch() {
  if (base_ == nullptr) return;
  // A failure here would repeat one the operation already reported.
  static_cast<void>(pooled_ ? cudaFreeAsync(base_, stream_) : cudaFree(base_));
}

}  // namespace detail
}  // namespace frugal::router::cuda
