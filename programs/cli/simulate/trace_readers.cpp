// Telling the trace formats apart and dispatching to their readers.
#include "trace_readers.hpp"

#include <fmt/format.h>

#include "input_error.hpp"
#include "json_input.hpp"
#include "text_input.hpp"

namespace frugal::simulate {
namespace {

bool starts_like_json(std::string_view text) {
  for (const char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    return c == '{' || c == '[';
  }
  return false;
}

Trace read_json_trace(std::string_view text, const std::string& source, TraceFormat format,
                      const TraceSelection& selection) {
  const JsonValue root = parse_json(text, source);
  if (format == TraceFormat::kSkyPilot) return read_skypilot_trace(root, source);
  if (format == TraceFormat::kAws) return read_aws_json_trace(root, source, selection);
  if (json_member(root, "SpotPriceHistory") != nullptr) return read_aws_json_trace(root, source, selection);
  if (json_member(root, "data") != nullptr || json_member(root, "metadata") != nullptr)
    return read_skypilot_trace(root, source);
  fail_in(source, fmt::format("wrong JSON shape: expected a SkyPilot trace {{\"metadata\": {{\"gap_seconds\": N}}, "
                              "\"data\": [...]}} or AWS spot price history {{\"SpotPriceHistory\": [...]}}, got {}",
                              json_kind_name(root)));
}

}  // namespace

std::optional<TraceFormat> trace_format_from_name(std::string_view name) {
  if (name == "auto") return TraceFormat::kAuto;
  if (name == "skypilot") return TraceFormat::kSkyPilot;
  if (name == "aws") return TraceFormat::kAws;
  if (name == "csv") return TraceFormat::kSimpleCsv;
  return std::nullopt;
}

Trace parse_trace(std::string_view text, const std::string& source, TraceFormat format,
                  const TraceSelection& selection) {
  if (format == TraceFormat::kSkyPilot || (format != TraceFormat::kSimpleCsv && starts_like_json(text)))
    return read_json_trace(text, source, format, selection);
  if (format == TraceFormat::kSimpleCsv) return read_simple_csv_trace(text, source);
  if (format == TraceFormat::kAws) return read_aws_csv_trace(text, source, selection);
  // Text: the simple format has 2-3 fields and starts with time_s or a
  // number; AWS rows have 5 (6 with the SPOTPRICEHISTORY column).
  const auto lines = content_lines(text);
  if (lines.empty()) throw InputError(fmt::format("{}: empty trace: no rows", source));
  const auto fields = split_fields(lines[0].text);
  if (looks_like_aws_header(lines[0].text) || fields.size() >= 5) return read_aws_csv_trace(text, source, selection);
  return read_simple_csv_trace(text, source);
}

Trace read_trace_file(const std::string& path, TraceFormat format, const TraceSelection& selection) {
  return parse_trace(read_text_file(path), path, format, selection);
}

}  // namespace frugal::simulate
