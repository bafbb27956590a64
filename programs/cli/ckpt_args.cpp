#include "ckpt_args.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <limits>

#include "program_main.hpp"

namespace frugal::cli {
namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

}  // namespace

std::optional<uint64_t> parse_byte_size(const std::string& text) {
  uint64_t number = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(begin, end, number);
  if (ec != std::errc() || ptr == begin) return std::nullopt;
  std::string suffix;
  for (const char* p = ptr; p != end; ++p) suffix += lower(*p);
  unsigned shift = 0;
  if (!suffix.empty()) {
    switch (suffix[0]) {
      case 'k': shift = 10; break;
      case 'm': shift = 20; break;
      case 'g': shift = 30; break;
      case 't': shift = 40; break;
      case 'b': shift = 0; break;
      default: return std::nullopt;
    }
    const std::string rest = suffix.substr(1);
    if (suffix[0] == 'b' ? !rest.empty() : !(rest.empty() || rest == "b" || rest == "ib")) return std::nullopt;
  }
  if (number == 0 || number > (std::numeric_limits<uint64_t>::max() >> shift)) return std::nullopt;
  return number << shift;
}

int64_t parse_int_flag(const std::string& flag, const std::string& text, int64_t min, int64_t max) {
  return args::parse_int(flag, text, min, max);
}

}  // namespace frugal::cli
