#include "write_budget.hpp"

#include <algorithm>

namespace frugal::store_fs {

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

}  // namespace frugal::store_fs
