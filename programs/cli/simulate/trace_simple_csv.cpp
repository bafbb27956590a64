// The simulator's own trace format: "time_s,available[,spot_price]".
#include <fmt/format.h>

#include "input_error.hpp"
#include "input_limits.hpp"
#include "text_input.hpp"
#include "trace_readers.hpp"

namespace frugal::simulate {
namespace {

bool parse_available(std::string_view text, const std::string& where) {
  if (text == "1" || text == "true") return true;
  if (text == "0" || text == "false") return false;
  throw InputError(fmt::format("{}: available must be 0, 1, true or false, got '{}'", where, text));
}

}  // namespace

Trace read_simple_csv_trace(std::string_view text, const std::string& source) {
  const auto lines = content_lines(text);
  size_t first = 0;
  size_t columns = 0;
  if (!lines.empty()) {
    const auto header = split_fields(lines[0].text);
    if (!parse_finite(header[0])) {
      const bool two = header.size() == 2 && header[0] == "time_s" && header[1] == "available";
      const bool three =
          header.size() == 3 && header[0] == "time_s" && header[1] == "available" && header[2] == "spot_price";
      if (!two && !three)
        throw InputError(fmt::format("{}:{}: expected the header time_s,available[,spot_price] or a data row, got '{}'",
                                     source, lines[0].number, lines[0].text));
      columns = header.size();
      first = 1;
    }
  }
  if (first >= lines.size()) throw InputError(fmt::format("{}: empty trace: no rows", source));
  if (columns == 0) columns = split_fields(lines[first].text).size();
  if (columns != 2 && columns != 3)
    throw InputError(fmt::format("{}:{}: expected 2 or 3 fields (time_s,available[,spot_price]), got {}", source,
                                 lines[first].number, columns));

  std::vector<TraceSegment> segments;
  bool ever_available = false;
  for (size_t l = first; l < lines.size(); ++l) {
    const std::string where = fmt::format("{}:{}", source, lines[l].number);
    const auto fields = split_fields(lines[l].text);
    if (fields.size() != columns)
      throw InputError(fmt::format("{}: expected {} fields, got {}", where, columns, fields.size()));
    const auto time = parse_finite(fields[0]);
    if (!time) throw InputError(fmt::format("{}: time_s is not a number: '{}'", where, fields[0]));
    if (segments.empty() && *time != 0.0)
      throw InputError(fmt::format("{}: the first row must be at time_s 0 (the job's start), got {}", where, *time));
    if (*time > kMaxTraceSeconds)
      throw InputError(
          fmt::format("{}: time_s {} is more than the limit of {:g} s from the start", where, *time, kMaxTraceSeconds));
    if (!segments.empty() && *time <= segments.back().start_s)
      throw InputError(fmt::format("{}: time going backwards: {} after {}", where, *time, segments.back().start_s));
    TraceSegment segment{*time, parse_available(fields[1], where), 0.0};
    if (columns == 3) {
      const auto price = parse_finite(fields[2]);
      if (!price) throw InputError(fmt::format("{}: spot_price is not a number: '{}'", where, fields[2]));
      if (*price < 0.0) throw InputError(fmt::format("{}: negative price {}", where, *price));
      if (*price > kMaxPrice)
        throw InputError(fmt::format("{}: price {} is more than the limit of {:g}", where, *price, kMaxPrice));
      segment.spot_price = *price;
    }
    ever_available = ever_available || segment.available;
    segments.push_back(segment);
  }
  if (!ever_available) throw InputError(fmt::format("{}: spot is never available in this trace", source));
  // The last row lasts as long as the one before it (one row: constant).
  const double last = segments.back().start_s;
  const double period = segments.size() > 1 ? last + (last - segments[segments.size() - 2].start_s) : 3600.0;
  Trace trace(source, "csv", std::move(segments), period, true, columns == 3);
  trace.set_selection(fmt::format("{} rows", lines.size() - first));
  return trace;
}

}  // namespace frugal::simulate
