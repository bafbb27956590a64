// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, the zlib / PNG one)
// over a byte span: guards the recipe state blobs against corruption that
// would otherwise pass the field checks (a flipped bit in a history entry).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace frugal::quant::recipes {

[[nodiscard]] uint32_t crc32(std::span<const std::byte> bytes) noexcept;

}  // namespace frugal::quant::recipes
