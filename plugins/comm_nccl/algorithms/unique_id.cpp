#include "algorithms/unique_id.hpp"

#include <algorithm>

#include "frugal/sdk/plugin_support.hpp"

namespace frugal::comm_nccl {
namespace {

// 0..15 for a hex digit, -1 otherwise.
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A character as a message shows it: printable ones quoted, others as a code.
std::string shown(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
  static constexpr char kDigits[] = "0123456789abcdef";
  return std::string("byte 0x") + kDigits[u >> 4] + kDigits[u & 15];
}

}  // namespace

UniqueIdBytes decode_unique_id(std::string_view text, const char* option) {
  constexpr std::size_t kDigits = 2 * kUniqueIdBytes;
  if (text.size() != kDigits)
    throw sdk::PluginError(FRUGAL_ERR_INVALID_ARGUMENT,
                           std::string("option '") + option + "' must be " + std::to_string(kDigits) +
                               " hex digits (the " + std::to_string(kUniqueIdBytes) +
                               " bytes of an ncclUniqueId); got " + std::to_string(text.size()) + " characters");
  UniqueIdBytes out{};
  for (std::size_t i = 0; i < kDigits; ++i) {
    const int v = hex_value(text[i]);
    if (v < 0)
      throw sdk::PluginError(FRUGAL_ERR_INVALID_ARGUMENT, std::string("option '") + option + "' has " + shown(text[i]) +
                                                              " at character " + std::to_string(i) +
                                                              ", not a hex digit (0-9, a-f, A-F)");
    out[i / 2] = static_cast<std::uint8_t>(i % 2 == 0 ? v << 4 : out[i / 2] | v);
  }
  return out;
}

std::string encode_unique_id(const UniqueIdBytes& id) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * id.size());
  for (const std::uint8_t b : id) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 15]);
  }
  return out;
}

bool is_null_id(const UniqueIdBytes& id) {
  return std::all_of(id.begin(), id.end(), [](std::uint8_t b) { return b == 0; });
}

}  // namespace frugal::comm_nccl
