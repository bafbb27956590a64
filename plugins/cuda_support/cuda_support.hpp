// The host-side CUDA plumbing every plugin's kernels share
// (frugal_plugin_cuda_support, built only with CUDA): the one formatter of
// a CUDA error, checks that throw CudaFailure, the device a pointer lives
// on, a scoped current device, device attributes, and stream-ordered
// scratch memory. Compiles with the host compiler and with nvcc.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cuda_support/device_errors.hpp"

namespace frugal::plugin_cuda {

// "<what>: <error name>: <error string>", e.g. "cudaMalloc:
// cudaErrorMemoryAllocation: out of memory". The one way a plugin words a
// CUDA error.
[[nodiscard]] std::string cuda_error_text(cudaError_t status, const char* what);

// Throws CudaFailure(cuda_error_text(status, what)) unless status is cudaSuccess.
void check(cudaError_t status, const char* what);

// check() of the error the last kernel launch left, naming the kernel.
inline void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

// The device of a device (or managed) pointer; throws UnsupportedDevice
// ("the <role> is not in CUDA device memory") for host memory.
[[nodiscard]] int device_of(const void* pointer, const char* role);

// Makes `device` current for the scope and restores the previous one.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int restore_ = -1;  // the device to make current again, -1 for none
};

// For its scope, the current device is the one `pointer` lives on
// (device_of's check included).
class OnDeviceOf {
 public:
  OnDeviceOf(const void* pointer, const char* role) : guard_(device_of(pointer, role)) {}

 private:
  DeviceGuard guard_;
};

// An attribute of the current device; `what` names it in a failure.
[[nodiscard]] int device_attribute(cudaDeviceAttr attribute, const char* what);

// Multiprocessors of the current device (at least 1).
[[nodiscard]] int multiprocessors();

// True when `pointer` is a multiple of `bytes` (a power of two).
[[nodiscard]] inline bool aligned(const void* pointer, std::size_t bytes) noexcept {
  return (reinterpret_cast<std::uintptr_t>(pointer) & (bytes - 1)) == 0;
}

// Device memory for one operation, in one allocation ordered on a stream:
// add() the arrays, allocate(), and each pointer given to add() is set.
// cudaMallocAsync, and cudaFreeAsync in the destructor, so the memory goes
// back after the work queued meanwhile and nothing waits (a device without
// memory pools falls back to cudaMalloc and cudaFree, which does wait).
class StreamScratch {
 public:
  explicit StreamScratch(cudaStream_t stream) : stream_(stream) {}
  // One array of `bytes`, allocated at once: get() is its address.
  StreamScratch(std::size_t bytes, cudaStream_t stream) : stream_(stream) {
    add(single_, bytes);
    allocate();
  }
  ~StreamScratch();
  StreamScratch(const StreamScratch&) = delete;
  StreamScratch& operator=(const StreamScratch&) = delete;

  // Reserves `count` Ts (256-byte aligned); `slot` gets their address at
  // allocate() and must outlive that call.
  template <class T>
  void add(T*& slot, std::size_t count) {
    const std::size_t at = bytes_;
    bytes_ += (count * sizeof(T) + 255) / 256 * 256;
    place_.push_back([&slot, at](char* base) { slot = reinterpret_cast<T*>(base + at); });
  }
  void allocate();

  // The array of the one-array constructor (null when it has 0 bytes).
  [[nodiscard]] void* get() const noexcept { return single_; }

 private:
  cudaStream_t stream_ = nullptr;
  std::size_t bytes_ = 0;
  std::vector<std::function<void(char*)>> place_;
  void* base_ = nullptr;
  bool pooled_ = false;
  char* single_ = nullptr;
};

}  // namespace frugal::plugin_cuda
