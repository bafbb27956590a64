#include "terminal_text.hpp"

#include <fmt/format.h>

#include <cstdint>

namespace frugal::cli {
namespace {

// One step through UTF-8 text: the code point starting at `at` and its
// length in bytes, or `valid` false for a byte that starts no valid
// sequence (length 1: the next step looks at the following byte).
struct CodePoint {
  uint32_t value;
  size_t length;
  bool valid;
};

CodePoint decode_at(std::string_view text, size_t at) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  if (lead < 0x80) return {lead, 1, true};
  size_t length = 0;
  uint32_t value = 0, min = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2, value = lead & 0x1Fu, min = 0x80;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3, value = lead & 0x0Fu, min = 0x800;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4, value = lead & 0x07u, min = 0x10000;
  } else {
    return {lead, 1, false};  // a continuation byte, 0xC0/0xC1 (overlong) or 0xF5..0xFF
  }
  if (at + length > text.size()) return {lead, 1, false};
  for (size_t i = 1; i < length; ++i) {
    if ((byte(at + i) & 0xC0u) != 0x80u) return {lead, 1, false};
    value = (value << 6) | (byte(at + i) & 0x3Fu);
  }
  if (value < min || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return {lead, 1, false};
  return {value, length, true};
}

bool is_control(uint32_t value) { return value < 0x20 || (value >= 0x7F && value <= 0x9F); }

}  // namespace

std::string terminal_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    const CodePoint cp = decode_at(text, at);
    if (cp.valid && !is_control(cp.value)) {
      out.append(text.substr(at, cp.length));
    } else {
      for (size_t i = 0; i < cp.length; ++i)
        out += fmt::format("\\x{:02x}", static_cast<unsigned>(static_cast<unsigned char>(text[at + i])));
    }
    at += cp.length;
  }
  return out;
}

}  // namespace frugal::cli
