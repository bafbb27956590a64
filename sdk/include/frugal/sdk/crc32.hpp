// frugal/sdk/crc32.hpp — CRC-32 (IEEE 802.3, reflected polynomial
// 0xEDB88320, the zlib / PNG one) over bytes, for state blobs that must
// catch corruption field checks would let through (a flipped bit in a
// history entry). Header-only; no frugal types, so plain algorithm
// libraries can use it too.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace frugal::sdk {

namespace crc32_detail {

constexpr std::array<uint32_t, 256> table() noexcept {
  std::array<uint32_t, 256> t{};
  for (uint32_t n = 0; n < t.size(); ++n) {
    uint32_t r = n;
    for (int bit = 0; bit < 8; ++bit) r = (r >> 1) ^ ((r & 1U) != 0 ? 0xEDB88320U : 0U);
    t[n] = r;
  }
  return t;
}

inline constexpr std::array<uint32_t, 256> kTable = table();

}  // namespace crc32_detail

// CRC-32 of `bytes` (crc32("123456789") == 0xCBF43926).
[[nodiscard]] inline uint32_t crc32(std::span<const std::byte> bytes) noexcept {
  uint32_t crc = 0xFFFFFFFFU;
  for (const std::byte b : bytes) crc = crc32_detail::kTable[(crc ^ std::to_integer<uint32_t>(b)) & 0xFFU] ^ (crc >> 8);
  return ~crc;
}

// False only in a fuzzing build (FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION,
// the define libFuzzer projects share): checksums are still computed but a
// mismatch is not refused, so mutated blobs reach the field checks behind
// the checksum. Never true in a shipped build.
[[nodiscard]] constexpr bool checksums_enforced() noexcept {
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
  return false;
#else
  return true;
#endif
}

}  // namespace frugal::sdk
