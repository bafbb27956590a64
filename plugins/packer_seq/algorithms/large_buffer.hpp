// Large working and output arrays for the packers. At 16M sequences the
// arrays are hundreds of MiB, and touching fresh memory one 4 KiB page fault
// at a time can cost more than the packing itself (on virtualised hosts a
// fault may take tens of microseconds). So big arrays ask for transparent
// huge pages (one fault per 2 MiB), and scratch arrays skip the zero fill.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "algorithms/types.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace frugal::packer {

// Advice only: a no-op where unsupported or for small ranges; never fails.
inline void advise_huge_pages(const void* p, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t begin = (at + kHuge - 1) & ~(kHuge - 1);
  const std::uintptr_t end = (at + bytes) & ~(kHuge - 1);
  // The aligned start as an offset from p, not an integer cast back to a
  // pointer: the pointer keeps its provenance.
  char* const first = const_cast<char*>(static_cast<const char*>(p)) + (begin - at);
  if (end > begin) (void)madvise(first, end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

// Reserves n elements (not yet touched) and advises huge pages for them.
template <class T>
void reserve_large(std::vector<T>& v, std::size_t n) {
  v.reserve(n);
  advise_huge_pages(v.data(), n * sizeof(T));
}

// An uninitialised array of trivial T: the caller writes before it reads.
// Pages never written are never faulted in, so an upper-bound size is cheap.
template <class T>
class LargeBuffer {
 public:
  explicit LargeBuffer(std::size_t n) : data_(std::make_unique_for_overwrite<T[]>(n == 0 ? 1 : n)) {
    advise_huge_pages(data_.get(), n * sizeof(T));
  }
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  [[nodiscard]] T* data() noexcept { return data_.get(); }

 private:
  std::unique_ptr<T[]> data_;
};

// A PackResult sized for `packs` packs over `items` sequences, its arrays
// on huge pages; the caller fills every entry.
inline PackResult sized_result(std::size_t packs, std::size_t items) {
  PackResult r;
  reserve_large(r.offsets, packs + 1);
  reserve_large(r.tokens, packs);
  reserve_large(r.items, items);
  r.offsets.resize(packs + 1);
  r.tokens.resize(packs);
  r.items.resize(items);
  return r;
}

}  // namespace frugal::packer
