#include "fast_checksum.hpp"

#include "xxh3_avx2.hpp"

namespace frugal::checksum {

Isa best_isa() noexcept {
#if defined(FRUGAL_CHECKSUM_AVX2)
  static const Isa isa = __builtin_cpu_supports("avx2") ? Isa::avx2 : Isa::baseline;
  return isa;
#else
  return Isa::baseline;
#endif
}

uint64_t xxh3(const void* data, size_t size, Isa isa) noexcept {
#if defined(FRUGAL_CHECKSUM_AVX2)
  if (isa == Isa::avx2) return avx2::xxh3(data, size);
#endif
  (void)isa;
  return XXH3_64bits(data, size);
}

Stream::Stream(Isa isa) noexcept : isa_(isa) { XXH3_64bits_reset(&state_); }

void Stream::update(const void* data, size_t size) noexcept {
#if defined(FRUGAL_CHECKSUM_AVX2)
  if (isa_ == Isa::avx2) {
    avx2::update(&state_, data, size);
    return;
  }
#endif
  XXH3_64bits_update(&state_, data, size);
}

uint64_t Stream::digest() const noexcept { return XXH3_64bits_digest(&state_); }

}  // namespace frugal::checksum
