// HostBuffer's ownership plumbing, shared by the CPU and CUDA builds (each
// provides the constructor and release()).
#include <sys/mman.h>

#include <cstring>
#include <utility>

#include "ckpt/device_copy.hpp"

namespace frugal::ckpt {

void prefault(uint8_t* data, size_t bytes) {
  if (data == nullptr || bytes == 0) return;
#ifdef MADV_HUGEPAGE
  madvise(data, bytes, MADV_HUGEPAGE);  // advisory: ignored where unsupported
#endif
  std::memset(data, 0, bytes);
}

HostBuffer::~HostBuffer() { release(); }

HostBuffer::HostBuffer(HostBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)), pinned_(other.pinned_) {}

HostBuffer& HostBuffer::operator=(HostBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    pinned_ = other.pinned_;
  }
  return *this;
}

}  // namespace frugal::ckpt
