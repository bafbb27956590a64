// Numbers in reasons. std::to_chars is locale-independent and exact for a
// given precision, so a restored instance writes the same bytes as the one
// that exported, whatever locale the host set.
#pragma once

#include <cstdint>
#include <string>

namespace frugal::policy::plugin {

// `value` with `decimals` digits after the point ("116.7").
[[nodiscard]] std::string fixed(double value, int decimals);

// A duration in seconds in the unit a person would use: "45 s", "116.7 min", "24.0 h".
[[nodiscard]] std::string duration(double seconds);

// A fraction as a percentage with one decimal ("4.2%").
[[nodiscard]] std::string percent(double fraction);

}  // namespace frugal::policy::plugin
