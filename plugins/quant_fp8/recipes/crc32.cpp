#include "recipes/crc32.hpp"

#include <array>

namespace frugal::quant::recipes {
namespace {

constexpr std::array<uint32_t, 256> make_table() noexcept {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1U) != 0 ? 0xEDB88320U ^ (c >> 1) : c >> 1;
    t[i] = c;
  }
  return t;
}

constexpr std::array<uint32_t, 256> kTable = make_table();

}  // namespace

uint32_t crc32(std::span<const std::byte> bytes) noexcept {
  uint32_t c = 0xFFFFFFFFU;
  for (const std::byte b : bytes) c = kTable[(c ^ std::to_integer<uint32_t>(b)) & 0xFFU] ^ (c >> 8);
  return c ^ 0xFFFFFFFFU;
}

}  // namespace frugal::quant::recipes
