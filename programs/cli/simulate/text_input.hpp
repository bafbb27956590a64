// Reading the simulator's text inputs: whole files, CSV-like lines and the
// numbers and timestamps in them, locale-independent and strict (a field
// is a number or it is an error, never half of one).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace frugal::simulate {

// The file's bytes; InputError "cannot read 'path': reason" otherwise,
// also past kMaxInputBytes (input_limits.hpp).
std::string read_text_file(const std::string& path);

struct TextLine {
  uint32_t number;        // 1-based line number in the file
  std::string_view text;  // without the line break and surrounding blanks
};

// Every line that is neither blank nor a '#' comment.
std::vector<TextLine> content_lines(std::string_view text);

// Fields separated by ',' (or by tabs when the line has no comma), each
// without surrounding blanks.
std::vector<std::string_view> split_fields(std::string_view line);

// A finite decimal number ("12", "-3.5e2"); nullopt for anything else,
// NaN and infinities included.
std::optional<double> parse_finite(std::string_view text);

// An ISO 8601 UTC time as the AWS tools write it: "2024-03-01T12:30:00Z",
// "2024-03-01T12:30:00.000Z", "2024-03-01T12:30:00+00:00", "...+0200", a
// space instead of the T, no zone (UTC). Seconds since 1970-01-01 UTC.
std::optional<double> parse_timestamp(std::string_view text);

}  // namespace frugal::simulate
