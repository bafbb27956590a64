#include "program_main.hpp"

#include <charconv>
#include <cstdio>

#include "help_text.hpp"

namespace frugal::args {

int program_main(int argc, char** argv, const Spec& spec, const std::function<int(const ParsedArgs&)>& run) {
  try {
    const ParsedArgs parsed = parse(std::vector<std::string>(argv + 1, argv + argc), spec);
    if (parsed.help) {
      std::fputs(help_text(spec).c_str(), stdout);
      return 0;
    }
    return run(parsed);
  } catch (const UsageError& e) {
    std::fputs(usage_error_text(spec, e.what()).c_str(), stderr);
    return 2;
  }
}

int64_t parse_int(const std::string& flag, const std::string& text, int64_t min, int64_t max) {
  int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty() || value < min || value > max)
    throw UsageError(flag + " must be an integer from " + std::to_string(min) + " to " + std::to_string(max) +
                     ", got '" + text + "'");
  return value;
}

int64_t int_value(const ParsedArgs& parsed, const std::string& flag, int64_t fallback, int64_t min, int64_t max) {
  const auto text = parsed.value(flag);
  return text ? parse_int(flag, *text, min, max) : fallback;
}

}  // namespace frugal::args
