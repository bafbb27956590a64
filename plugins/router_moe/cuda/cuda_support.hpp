// Host-side plumbing of router_moe's CUDA path. Internal to cuda/; compiles
// with the host compiler and with nvcc.
//   - check(): a CUDA error as CudaFailure, naming the call;
//   - OnDeviceOf: makes the device a pointer lives on current for a scope;
//   - row_launch(): the shape of a one-warp-per-token kernel;
//   - StreamScratch: stream-ordered scratch memory carved into arrays.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "cuda/cuda_ops.hpp"

namespace frugal::router::cuda::detail {

// Throws CudaFailure("router_moe CUDA: <what>: <error name>: <string>")
// unless status is cudaSuccess.
void check(cudaError_t status, const char* what);

// check() of the error a kernel launch left.
inline void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

// For its scope, the current device is the one `pointer` lives on (the
// previous one is restored after). Throws UnsupportedDevice naming `role`
// when the pointer is not CUDA device or managed memory.
class OnDeviceOf {
 public:
  OnDeviceOf(const void* pointer, const char* role);
  ~OnDeviceOf();
  OnDeviceOf(const OnDeviceOf&) = delete;
  OnDeviceOf& operator=(const OnDeviceOf&) = delete;

 private:
  int restore_ = -1;  // the device to make current again, -1 for none
};

// Multiprocessors of the current device.
int multiprocessors();

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

// Device memory for one operation, in one allocation ordered on a stream:
// add() the arrays, allocate(), and each pointer given to add() is set.
// cudaMallocAsync, and cudaFreeAsync in the destructor, so the memory goes
// back after the work queued meanwhile and nothing waits (a device without
// memory pools falls back to cudaMalloc and cudaFree, which does wait).
class StreamScratch {
 public:
  explicit StreamScratch(cudaStream_t stream) : stream_(stream) {}
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

 private:
  cudaStream_t stream_ = nullptr;
  std::size_t bytes_ = 0;
  std::vector<std::function<void(char*)>> place_;
  void* base_ = nullptr;
  bool pooled_ = false;
};

}  // namespace frugal::router::cuda::detail
