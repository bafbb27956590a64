// Moving registered state between its device and the host snapshot. The
// CPU build and the CUDA build provide the same functions; without CUDA a
// CUDA tensor is refused at registration, never at save time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>

#include "frugal/tensor.h"

namespace frugal::ckpt {

// Host memory for snapshots: page-locked when CUDA tensors are involved, so
// device-to-host copies run at full bandwidth and asynchronously.
class HostBuffer {
 public:
  HostBuffer() = default;
  HostBuffer(size_t bytes, bool pinned);  // throws OUT_OF_MEMORY / DEVICE
  ~HostBuffer();
  HostBuffer(HostBuffer&& other) noexcept;
  HostBuffer& operator=(HostBuffer&& other) noexcept;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  [[nodiscard]] uint8_t* data() const { return data_; }
  [[nodiscard]] size_t size() const { return size_; }
  [[nodiscard]] bool pinned() const { return pinned_; }

 private:
  void release() noexcept;
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool pinned_ = false;
};

// Touches every page of a fresh allocation (asking for huge pages first), so
// the first snapshot does not pay the page faults: a GiB of 4 KiB faults
// costs seconds, which would land on the training thread.
void prefault(uint8_t* data, size_t bytes);

// Throws UNSUPPORTED when this build cannot copy from/to `device`.
void check_device_supported(const frugal_device& device, const char* tensor_name);

// Per-engine copy queue (a CUDA stream when built with CUDA).
class DeviceCopier {
 public:
  DeviceCopier();
  ~DeviceCopier();
  DeviceCopier(const DeviceCopier&) = delete;
  DeviceCopier& operator=(const DeviceCopier&) = delete;

  // Queues a copy of `bytes` from a tensor on `device` to host `dst`.
  void to_host(void* dst, const void* src, size_t bytes, const frugal_device& device);
  // Queues a copy of `bytes` from host `src` to a tensor on `device`.
  void from_host(void* dst, const void* src, size_t bytes, const frugal_device& device);
  // Waits for every queued copy; throws DEVICE on a CUDA failure.
  void finish();
  // Drops queued copies that were not run (after a failure part-way through
  // queueing), so a later finish() never runs stale ones. Never throws.
  void discard() noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  void begin_batch_on(int device);  // CUDA build only
};

// Scope guard: when the scope is left by an exception, the copier's queued
// copies are discarded, so a failure part-way through queueing never leaves
// stale copies for a later finish().
class DiscardCopiesOnThrow {
 public:
  explicit DiscardCopiesOnThrow(DeviceCopier& copier) : copier_(copier), uncaught_(std::uncaught_exceptions()) {}
  ~DiscardCopiesOnThrow() {
    if (std::uncaught_exceptions() > uncaught_) copier_.discard();
  }
  DiscardCopiesOnThrow(const DiscardCopiesOnThrow&) = delete;
  DiscardCopiesOnThrow& operator=(const DiscardCopiesOnThrow&) = delete;

 private:
  DeviceCopier& copier_;
  int uncaught_;
};

}  // namespace frugal::ckpt
