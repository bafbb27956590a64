// Readers for the three trace formats the simulator replays. Every reader
// validates everything and throws InputError naming the file, the line (or
// for JSON the line:column of a syntax error, or the element's path) and
// what is wrong.
//   SkyPilot spot traces (JSON): {"metadata": {"gap_seconds": N}, "data": [0, 1, ...]}:
//     data[i] is 1 (or true) when spot capacity was preempted/unavailable
//     during gap i, 0 (false) when it was available. Availability only.
//   AWS spot price history: the JSON of `aws ec2 describe-spot-price-history`
//     ({"SpotPriceHistory": [{"AvailabilityZone", "InstanceType",
//     "ProductDescription", "SpotPrice", "Timestamp"}, ...]}), or CSV/text
//     rows "az, instance type, product, price, timestamp" (a header naming
//     the columns is optional; a leading SPOTPRICEHISTORY column, as in the
//     tool's text output, is skipped). Prices only. One zone / instance
//     type / product series is replayed (TraceSelection).
//   Simple CSV: "time_s,available[,spot_price]" rows (the header line is
//     optional), time from 0, strictly increasing.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <string_view>

#include "trace.hpp"

namespace frugal::simulate {

enum class TraceFormat { kAuto, kSkyPilot, kAws, kSimpleCsv };

// "auto", "skypilot", "aws", "csv"; nullopt for anything else.
std::optional<TraceFormat> trace_format_from_name(std::string_view name);

// Which AWS series to replay: empty fields match anything. Among the
// series that match, the one with the most rows is used (ties: the
// smallest zone, then instance type, then product).
struct TraceSelection {
  std::string zone;
  std::string instance_type;
  std::string product;
};

// Reads `path`; kAuto tells the format from the content.
Trace read_trace_file(const std::string& path, TraceFormat format, const TraceSelection& selection);
// The same on text already read; `source` names it in errors.
Trace parse_trace(std::string_view text, const std::string& source, TraceFormat format,
                  const TraceSelection& selection);

// The formats' readers (trace_skypilot.cpp, trace_aws.cpp, trace_simple_csv.cpp).
using JsonValue = nlohmann::json;  // as json_input.hpp names it
Trace read_skypilot_trace(const JsonValue& root, const std::string& source);
Trace read_aws_json_trace(const JsonValue& root, const std::string& source, const TraceSelection& selection);
Trace read_aws_csv_trace(std::string_view text, const std::string& source, const TraceSelection& selection);
Trace read_simple_csv_trace(std::string_view text, const std::string& source);
// A first line that names AWS columns (a zone or an instance type column).
bool looks_like_aws_header(std::string_view line);

}  // namespace frugal::simulate
