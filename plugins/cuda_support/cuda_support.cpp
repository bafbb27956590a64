#include "cuda_support/cuda_support.hpp"

namespace frugal::plugin_cuda {

std::string cuda_error_text(cudaError_t status, const char* what) {
  return std::string(what) + ": " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status);
}

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw CudaFailure(cuda_error_text(status, what));
}

int device_of(const void* pointer, const char* role) {
  cudaPointerAttributes a{};
  check(cudaPointerGetAttributes(&a, pointer), "cudaPointerGetAttributes");
  if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
    throw UnsupportedDevice(std::string("the ") + role + " is not in CUDA device memory");
  return a.device;
}

DeviceGuard::DeviceGuard(int device) {
  int current = 0;
  check(cudaGetDevice(&current), "cudaGetDevice");
  if (current == device) return;
  check(cudaSetDevice(device), "cudaSetDevice");
  restore_ = current;
}

DeviceGuard::~DeviceGuard() {
  if (restore_ >= 0) static_cast<void>(cudaSetDevice(restore_));
}

int device_attribute(cudaDeviceAttr attribute, const char* what) {
  int device = 0;
  int value = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&value, attribute, device), what);
  return value;
}

int multiprocessors() {
  const int sms = device_attribute(cudaDevAttrMultiProcessorCount, "multiprocessor count");
  return sms > 0 ? sms : 1;
}

void StreamScratch::allocate() {
  if (bytes_ != 0) {
    pooled_ = device_attribute(cudaDevAttrMemoryPoolsSupported, "memory pool support") != 0;
    check(pooled_ ? cudaMallocAsync(&base_, bytes_, stream_) : cudaMalloc(&base_, bytes_), "scratch allocation");
  }
  for (const auto& place : place_) place(static_cast<char*>(base_));
}

StreamScratch::~StreamScratch() {
  if (base_ == nullptr) return;
  // A failure here would repeat one the operation already reported.
  static_cast<void>(pooled_ ? cudaFreeAsync(base_, stream_) : cudaFree(base_));
}

}  // namespace frugal::plugin_cuda
