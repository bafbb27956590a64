// Snapshot copies with CUDA: device -> pinned host on a per-engine stream
// (cudaMemcpyAsync), so a snapshot of many tensors is one queue of copies
// and one synchronisation. Host memory copies stay plain memcpy.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ckpt/device_copy.hpp"
#include "ckpt/parallel_copy.hpp"
#include "error.hpp"

namespace frugal::ckpt {
namespace {

// libfrugal's own wording of a CUDA error (a frugal error with the DEVICE
// code), not plugins/cuda_support's cuda_error_text: the core never links
// the plugins' support libraries (they throw the plugins' exception types
// and build only with the plugins' kernels).
void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    fail(FRUGAL_ERR_DEVICE, "checkpoint: {} failed: {} ({})", what, cudaGetErrorString(status),
         static_cast<int>(status));
}

}  // namespace

// Makes `device` current for the copy and puts the caller's device back
// afterwards: the training thread's later unqualified CUDA work must not
// move to another GPU because a checkpoint touched it.
class CurrentDevice {
 public:
  explicit CurrentDevice(int device) {
    check_cuda(cudaGetDevice(&previous_), "cudaGetDevice");
    if (device != previous_) check_cuda(cudaSetDevice(device), "cudaSetDevice");
  }
  ~CurrentDevice() { cudaSetDevice(previous_); }
  CurrentDevice(const CurrentDevice&) = delete;
  CurrentDevice& operator=(const CurrentDevice&) = delete;

 private:
  int previous_ = 0;
};

struct DeviceCopier::Impl {
  cudaStream_t stream = nullptr;
  bool used = false;
  std::vector<int> synced_devices;    // devices already synchronised for this batch
  std::vector<CopyTask> host_copies;  // host-memory copies, run in parallel by finish()
};

HostBuffer::HostBuffer(size_t bytes, bool pinned) : size_(bytes), pinned_(pinned) {
  if (bytes == 0) return;
  if (pinned) {
    void* memory = nullptr;
    check_cuda(cudaHostAlloc(&memory, bytes, cudaHostAllocDefault), "cudaHostAlloc of the snapshot buffer");
    data_ = static_cast<uint8_t*>(memory);
    return;
  }
  void* memory = nullptr;
  // 2 MiB alignment lets the kernel back the buffer with huge pages.
  if (posix_memalign(&memory, size_t{2} << 20, bytes) != 0)
    fail(FRUGAL_ERR_OUT_OF_MEMORY, "checkpoint snapshot buffer: cannot allocate {} bytes", bytes);
  data_ = static_cast<uint8_t*>(memory);
  prefault(data_, bytes);
}

void HostBuffer::release() noexcept {
  if (data_ == nullptr) return;
  if (pinned_)
    cudaFreeHost(data_);
  else
    std::free(data_);
}

void check_device_supported(const frugal_device& device, const char* tensor_name) {
  if (device.type == FRUGAL_DEVICE_CPU || device.type == FRUGAL_DEVICE_CUDA_PINNED) return;
  if (device.type != FRUGAL_DEVICE_CUDA)
    fail(FRUGAL_ERR_UNSUPPORTED, "tensor '{}' has device type {}, which the checkpoint engine cannot copy", tensor_name,
         device.type);
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || device.id < 0 || device.id >= count)
    fail(FRUGAL_ERR_DEVICE, "tensor '{}' is on CUDA device {}, but {} CUDA device(s) are usable", tensor_name,
         device.id, count);
}

DeviceCopier::DeviceCopier() : impl_(std::make_unique<Impl>()) {}

DeviceCopier::~DeviceCopier() {
  if (impl_->stream != nullptr) cudaStreamDestroy(impl_->stream);
}

void DeviceCopier::to_host(void* dst, const void* src, size_t bytes, const frugal_device& device) {
  if (device.type != FRUGAL_DEVICE_CUDA) {
    impl_->host_copies.push_back({dst, src, bytes});
    return;
  }
  CurrentDevice current(device.id);
  begin_batch_on(device.id);
  check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, impl_->stream),
             "cudaMemcpyAsync (device to host)");
  impl_->used = true;
}

void DeviceCopier::from_host(void* dst, const void* src, size_t bytes, const frugal_device& device) {
  if (device.type != FRUGAL_DEVICE_CUDA) {
    impl_->host_copies.push_back({dst, src, bytes});
    return;
  }
  CurrentDevice current(device.id);
  begin_batch_on(device.id);
  check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, impl_->stream),
             "cudaMemcpyAsync (host to device)");
  impl_->used = true;
}

void DeviceCopier::begin_batch_on(int device) {
  // The copy stream is non-blocking, so it would not wait for kernels the
  // host queued on other streams (an optimizer step still writing the
  // parameters). Synchronise each device once per batch before its first
  // copy: the snapshot then holds exactly the state at the save call.
  if (std::find(impl_->synced_devices.begin(), impl_->synced_devices.end(), device) == impl_->synced_devices.end()) {
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize before the checkpoint copy");
    impl_->synced_devices.push_back(device);
  }
  if (impl_->stream == nullptr)
    check_cuda(cudaStreamCreateWithFlags(&impl_->stream, cudaStreamNonBlocking), "cudaStreamCreate");
}

void DeviceCopier::discard() noexcept {
  impl_->host_copies.clear();
  impl_->synced_devices.clear();
  if (impl_->used && impl_->stream != nullptr) cudaStreamSynchronize(impl_->stream);  // nothing may still write
  impl_->used = false;
}

void DeviceCopier::finish() {
  impl_->synced_devices.clear();
  // Host copies run while the device copies are in flight on the stream.
  std::vector<CopyTask> tasks;
  tasks.swap(impl_->host_copies);
  parallel_memcpy(tasks);
  if (!impl_->used) return;
  impl_->used = false;
  check_cuda(cudaStreamSynchronize(impl_->stream), "cudaStreamSynchronize");
}

}  // namespace frugal::ckpt
