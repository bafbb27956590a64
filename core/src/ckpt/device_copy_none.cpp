// Snapshot copies in a build without CUDA: host memory only.
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ckpt/device_copy.hpp"
#include "ckpt/parallel_copy.hpp"
#include "error.hpp"

namespace frugal::ckpt {

struct DeviceCopier::Impl {
  std::vector<CopyTask> host_copies;  // run together, in parallel, by finish()
};

HostBuffer::HostBuffer(size_t bytes, bool pinned) : size_(bytes), pinned_(false) {
  (void)pinned;  // page-locking needs CUDA; plain memory is correct, only slower
  if (bytes == 0) return;
  void* memory = nullptr;
  // 2 MiB alignment lets the kernel back the buffer with huge pages.
  if (posix_memalign(&memory, size_t{2} << 20, bytes) != 0)
    fail(FRUGAL_ERR_OUT_OF_MEMORY, "checkpoint snapshot buffer: cannot allocate {} bytes", bytes);
  data_ = static_cast<uint8_t*>(memory);
  prefault(data_, bytes);
}

void HostBuffer::release() noexcept { std::free(data_); }

void check_device_supported(const frugal_device& device, const char* tensor_name) {
  if (device.type == FRUGAL_DEVICE_CPU || device.type == FRUGAL_DEVICE_CUDA_PINNED) return;
  if (device.type == FRUGAL_DEVICE_CUDA)
    fail(FRUGAL_ERR_UNSUPPORTED, "tensor '{}' lives in CUDA memory but libfrugal was built without CUDA", tensor_name);
  fail(FRUGAL_ERR_UNSUPPORTED, "tensor '{}' has device type {}, which the checkpoint engine cannot copy", tensor_name,
       device.type);
}

DeviceCopier::DeviceCopier() : impl_(std::make_unique<Impl>()) {}
DeviceCopier::~DeviceCopier() = default;

void DeviceCopier::to_host(void* dst, const void* src, size_t bytes, const frugal_device&) {
  impl_->host_copies.push_back({dst, src, bytes});
}
void DeviceCopier::from_host(void* dst, const void* src, size_t bytes, const frugal_device&) {
  impl_->host_copies.push_back({dst, src, bytes});
}
void DeviceCopier::discard() noexcept { impl_->host_copies.clear(); }

void DeviceCopier::finish() {
  std::vector<CopyTask> tasks;
  tasks.swap(impl_->host_copies);  // cleared even if a copy were to throw
  parallel_memcpy(tasks);
}

}  // namespace frugal::ckpt
