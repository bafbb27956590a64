// frugal/sdk/checksum.hpp — the one checksum of frugal's byte formats:
// XXH3-64 (seed 0) from xxHash, used header-only. The core's checkpoint
// shards, manifests and state blobs and the plugins' state blobs
// (state_blob.hpp) all carry it. No frugal types, so plain algorithm
// libraries can use it too; needs xxhash.h (libxxhash-dev), nothing at
// run time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace frugal::sdk {

// XXH3-64 of `size` bytes at `data`.
[[nodiscard]] inline uint64_t xxh3(const void* data, std::size_t size) noexcept { return XXH3_64bits(data, size); }

// XXH3-64 of `bytes`.
[[nodiscard]] inline uint64_t xxh3(std::span<const std::byte> bytes) noexcept {
  return XXH3_64bits(bytes.data(), bytes.size());
}

// Incremental XXH3-64 for data read in chunks (gives the same value as xxh3()).
class Xxh3Stream {
 public:
  Xxh3Stream() noexcept { XXH3_64bits_reset(&state_); }
  void update(const void* data, std::size_t size) noexcept { XXH3_64bits_update(&state_, data, size); }
  [[nodiscard]] uint64_t digest() const noexcept { return XXH3_64bits_digest(&state_); }

 private:
  XXH3_state_t state_{};
};

// False only in a fuzzing build (FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION,
// the define libFuzzer projects share, set by cmake/FrugalFuzzing.cmake):
// checksums are still computed but a mismatch is not refused, so mutated
// blobs reach the field checks behind the checksum. Never false in a
// shipped build.
[[nodiscard]] constexpr bool checksums_enforced() noexcept {
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
  return false;
#else
  return true;
#endif
}

}  // namespace frugal::sdk
