// A std::vector of int64_t whose resize() leaves new elements uninitialised
// and whose large buffers sit on transparent huge pages. Packing 16M
// sequences touches several arrays of 128 MiB: zero-filling each before it
// is overwritten costs an extra pass, and first-touch page faults (one per
// 4 KiB page, very expensive on virtual machines) dominated the run time.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace frugal::pack {

template <typename T>
struct DefaultInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  using std::allocator<T>::allocator;

  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  static constexpr std::size_t kHugeFrom = std::size_t{8} << 20;  // smaller buffers: the plain allocator

  T* allocate(std::size_t n) {
    if (n > std::size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugeFrom) return std::allocator<T>::allocate(n);
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (p == nullptr) throw std::bad_alloc();
    // Advice only: where the kernel has huge pages off, this fails harmlessly.
    (void)::madvise(p, rounded, MADV_HUGEPAGE);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kHugeFrom) {
      std::allocator<T>::deallocate(p, n);
    } else {
      std::free(p);
    }
  }

  // Value-initialisation (what resize(n) asks for) becomes default-
  // initialisation: a no-op for integers. Explicit values still construct.
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

using I64Vec = std::vector<int64_t, DefaultInitAllocator<int64_t>>;

}  // namespace frugal::pack
