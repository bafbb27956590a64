// Just enough JSON output for the CLI: string escaping per RFC 8259.
#pragma once

#include <string>
#include <string_view>

namespace frugal::cli {

// `text` as a quoted JSON string literal.
std::string json_string(std::string_view text);

}  // namespace frugal::cli
