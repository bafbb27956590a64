#include "plugin/text.hpp"

#include <charconv>
#include <cmath>

namespace frugal::policy::plugin {

std::string fixed(double value, int decimals) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (std::isnan(value)) return "nan";
  if (value == 0.0) value = 0.0;  // no "-0.0"
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed, decimals);
  if (r.ec != std::errc()) return std::to_string(value);
  std::string out(buf, r.ptr);
  if (out.find_first_not_of("-0.") == std::string::npos && out[0] == '-') out.erase(0, 1);  // "-0.0"
  return out;
}

std::string duration(double seconds) {
  const double magnitude = std::fabs(seconds);
  if (magnitude < 600.0) return fixed(seconds, magnitude < 10.0 && seconds != std::floor(seconds) ? 1 : 0) + " s";
  if (magnitude < 3.0 * 3600.0) return fixed(seconds / 60.0, 1) + " min";
  return fixed(seconds / 3600.0, 1) + " h";
}

std::string percent(double fraction) { return fixed(100.0 * fraction, 1) + "%"; }

}  // namespace frugal::policy::plugin
