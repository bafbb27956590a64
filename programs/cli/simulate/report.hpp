// The simulator's three outputs, as text: a table for people, JSON for
// machines (a top-level "plans" list, each with its "cost"), and an SVG
// plot. None contains a timing or anything else that varies between two
// runs with the same seed: the same inputs give the same bytes.
#pragma once

#include <string>

#include "summary.hpp"

namespace frugal::simulate {

std::string format_table(const Report& report);
std::string format_json(const Report& report);
std::string format_svg(const Report& report);

// "spot" / "reserved".
const char* resource_name(int32_t resource);

}  // namespace frugal::simulate
