// XXH3-64 (seed 0), used header-only: the checksums of checkpoint shards
// and manifests and of the core's state blobs (byte_codec.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace frugal {

inline uint64_t xxh3(const void* data, size_t size) { return XXH3_64bits(data, size); }

// False only in a fuzzing build (FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION,
// cmake/FrugalFuzzing.cmake): checksums are computed but a mismatch is not
// refused, so mutated manifests, shards and states reach the checks behind
// the checksum. Never false in a shipped build.
constexpr bool checksums_enforced() noexcept {
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
  return false;
#else
  return true;
#endif
}

// Incremental XXH3-64 for data read in chunks (gives the same value as xxh3()).
class Xxh3Stream {
 public:
  Xxh3Stream() { XXH3_64bits_reset(&state_); }
  void update(const void* data, size_t size) { XXH3_64bits_update(&state_, data, size); }
  uint64_t digest() const { return XXH3_64bits_digest(&state_); }

 private:
  XXH3_state_t state_{};
};

}  // namespace frugal
