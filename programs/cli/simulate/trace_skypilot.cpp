// SkyPilot spot traces: a gap length and one 0/1 per gap (1 = preempted).
#include <fmt/format.h>

#include <cmath>

#include "input_error.hpp"
#include "input_limits.hpp"
#include "json_input.hpp"
#include "trace_readers.hpp"

namespace frugal::simulate {
namespace {

constexpr const char* kShape = "expected a SkyPilot trace {\"metadata\": {\"gap_seconds\": N}, \"data\": [0, 1, ...]}";

// A number as messages show it, or what the value is instead.
std::string shown(const JsonValue& value) {
  return value.is_number() ? fmt::format("{}", json_number(value)) : json_kind_name(value);
}

// data[i] as "preempted": 1/0 or true/false.
bool preempted(const std::string& source, const JsonValue& item, size_t i) {
  if (item.is_boolean()) return item.get<bool>();
  if (item.is_number() && (json_number(item) == 0.0 || json_number(item) == 1.0)) return json_number(item) == 1.0;
  fail_in(source, fmt::format("data[{}] must be 0, 1, true or false, got {}", i, shown(item)));
}

}  // namespace

Trace read_skypilot_trace(const JsonValue& root, const std::string& source) {
  if (!root.is_object()) fail_in(source, fmt::format("wrong JSON shape: {}, got {}", kShape, json_kind_name(root)));
  const JsonValue* metadata = json_member(root, "metadata");
  const JsonValue* data = json_member(root, "data");
  if (metadata == nullptr || data == nullptr)
    fail_in(source,
            fmt::format("wrong JSON shape: {}; \"{}\" is missing", kShape, metadata == nullptr ? "metadata" : "data"));
  if (!metadata->is_object())
    fail_in(source, fmt::format("wrong JSON shape: \"metadata\" must be an object, got {}", json_kind_name(*metadata)));
  if (!data->is_array())
    fail_in(source, fmt::format("wrong JSON shape: \"data\" must be an array, got {}", json_kind_name(*data)));
  const JsonValue* gap_value = json_member(*metadata, "gap_seconds");
  if (gap_value == nullptr) fail_in(source, "metadata.gap_seconds is missing");
  const double gap = gap_value->is_number() ? json_number(*gap_value) : 0.0;
  if (!gap_value->is_number() || !(gap > 0.0) || !(gap <= kMaxGapSeconds))
    fail_in(source, fmt::format("metadata.gap_seconds must be a number > 0 and <= {:g}, got {}", kMaxGapSeconds,
                                shown(*gap_value)));
  if (data->empty()) fail_in(source, "empty trace: \"data\" has no gaps");

  std::vector<TraceSegment> segments;
  bool ever_available = false;
  for (size_t i = 0; i < data->size(); ++i) {
    const bool available = !preempted(source, (*data)[i], i);
    ever_available = ever_available || available;
    if (segments.empty() || segments.back().available != available)
      segments.push_back({static_cast<double>(i) * gap, available, 0.0});
  }
  if (!ever_available) fail_in(source, "every gap in \"data\" is preempted: spot is never available in this trace");
  Trace trace(source, "skypilot", std::move(segments), static_cast<double>(data->size()) * gap, true, false);
  trace.set_selection(fmt::format("{} gaps of {} s", data->size(), gap));
  return trace;
}

}  // namespace frugal::simulate
