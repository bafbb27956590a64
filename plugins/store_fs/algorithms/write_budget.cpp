#include "write_budget.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace frugal::store_fs {
namespace {

// Linux caps one write at 0x7ffff000 bytes; 1 GiB stays below it on every
// platform and is large enough that syscall cost is nil.
constexpr uint64_t kMaxChunk = uint64_t{1} << 30;

}  // namespace

size_t WriteBudget::reserve(size_t want) noexcept {
  if (limit_ < 0) return want;
  const auto limit = static_cast<uint64_t>(limit_);
  uint64_t written = written_.load();
  for (;;) {
    const uint64_t left = written >= limit ? 0 : limit - written;
    const size_t take = static_cast<size_t>(std::min<uint64_t>(want, left));
    if (take == 0 || written_.compare_exchange_weak(written, written + take)) return take;
  }
}

void WriteBudget::refund(size_t unused) noexcept {
  if (limit_ >= 0 && unused > 0) written_.fetch_sub(unused);
}

int write_all(int fd, const void* data, uint64_t size, WriteBudget& budget) noexcept {
  const auto* next = static_cast<const unsigned char*>(data);
  uint64_t left = size;
  while (left > 0) {
    const size_t want = static_cast<size_t>(std::min(left, kMaxChunk));
    const size_t allowed = budget.reserve(want);
    if (allowed == 0) return ENOSPC;  // injected: behave exactly like a full disk
    const ssize_t n = ::write(fd, next, allowed);
    if (n < 0) {
      const int err = errno;
      budget.refund(allowed);
      if (err == EINTR) continue;
      return err;
    }
    budget.refund(allowed - static_cast<size_t>(n));
    // write() of a nonzero count returning 0 never happens on a regular
    // file; treat it as a full device rather than spin.
    if (n == 0) return ENOSPC;
    next += n;
    left -= static_cast<uint64_t>(n);
  }
  return 0;
}

}  // namespace frugal::store_fs
