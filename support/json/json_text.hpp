// The JSON the tools write (`frugal ... --json`, `frugal simulate --json`,
// `frugal-conformance --json`, the demo's report.json): values built as
// nlohmann-json's ordered_json, so members come out in the order they were
// set, and written by json_text, the one place that decides how.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace frugal::json {

using Json = nlohmann::ordered_json;

// `value` as JSON text, `indent` spaces per level (-1: one line), ending
// without a newline. The text is ASCII: every other character is written
// as a \uXXXX escape, and so are the control characters (DEL and the C1
// controls too), so that it is valid UTF-8 and safe to print on a terminal
// whatever bytes the strings held; each byte of invalid UTF-8 in a string
// becomes \ufffd (U+FFFD). A NaN or infinite number is written as null
// (JSON has neither); other numbers in their shortest round-trip form
// (a double that holds an integer keeps a ".0": store counts as integers).
std::string json_text(const Json& value, int indent = 2);

}  // namespace frugal::json
