// The fault injection that lets tests see the store behave exactly as on a
// full disk ("inject_enospc_after_bytes"); object_io.cpp's write loop
// draws on it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace frugal::store_fs {

// How many bytes the store may still write before writes fail as with
// ENOSPC. Shared by every put of one store, hence atomic.
class WriteBudget {
 public:
  // limit < 0: no limit (the normal case).
  explicit WriteBudget(int64_t limit) noexcept : limit_(limit) {}

  // Reserves up to `want` bytes; returns how many may be written (0 once
  // the limit is reached: the write must fail with ENOSPC).
  size_t reserve(size_t want) noexcept;
  // Gives back reserved bytes that were not written (a short write).
  void refund(size_t unused) noexcept;

 private:
  int64_t limit_;
  std::atomic<uint64_t> written_{0};
};

}  // namespace frugal::store_fs
