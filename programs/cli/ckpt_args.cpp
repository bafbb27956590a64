#include "ckpt_args.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

namespace frugal::cli {
namespace {

std::string accepted_list(const std::vector<std::string>& value_flags, const std::vector<std::string>& switch_flags) {
  std::string out;
  for (const auto& flag : value_flags) out += (out.empty() ? "" : ", ") + flag + " VALUE";
  for (const auto& flag : switch_flags) out += (out.empty() ? "" : ", ") + flag;
  return out.empty() ? "none" : out;
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

}  // namespace

std::optional<std::string> ParsedArgs::value(const std::string& flag) const {
  const auto it = values.find(flag);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

ParsedArgs parse_args(const std::vector<std::string>& args, const std::vector<std::string>& value_flags,
                      const std::vector<std::string>& switch_flags) {
  ParsedArgs parsed;
  bool only_positionals = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (only_positionals || arg.size() < 2 || arg.rfind("--", 0) != 0) {
      if (!only_positionals && arg.size() > 1 && arg[0] == '-')
        throw UsageError(fmt::format("unknown argument '{}' (accepted: {})", arg, accepted_list(value_flags, switch_flags)));
      parsed.positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positionals = true;
      continue;
    }
    const size_t eq = arg.find('=');
    const std::string flag = arg.substr(0, eq);
    if (contains(value_flags, flag)) {
      std::string value;
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
      } else {
        if (i + 1 >= args.size()) throw UsageError(fmt::format("{} needs a value", flag));
        value = args[++i];
      }
      if (!parsed.values.emplace(flag, value).second) throw UsageError(fmt::format("{} given twice", flag));
    } else if (contains(switch_flags, flag) && eq == std::string::npos) {
      if (!parsed.switches.insert(flag).second) throw UsageError(fmt::format("{} given twice", flag));
    } else if (contains(switch_flags, flag)) {
      throw UsageError(fmt::format("{} takes no value", flag));
    } else {
      throw UsageError(fmt::format("unknown argument '{}' (accepted: {})", arg, accepted_list(value_flags, switch_flags)));
    }
  }
  return parsed;
}

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
  int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty() || value < min || value > max)
    throw UsageError(fmt::format("{} must be an integer from {} to {}, got '{}'", flag, min, max, text));
  return value;
}

}  // namespace frugal::cli
