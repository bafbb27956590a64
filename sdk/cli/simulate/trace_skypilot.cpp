// SkyPilot spot traces: a gap length and one 0/1 per gap (1 = preempted).
#include <fmt/format.h>

#include <cmath>

#include "input_error.hpp"
#include "input_limits.hpp"
#include "json_value.hpp"
#include "trace_readers.hpp"

namespace frugal::simulate {
namespace {

[[noreturn]] void fail_at(const std::string& source, const JsonValue& where, const std::string& what) {
  throw InputError(fmt::format("{}:{}:{}: {}", source, where.line, where.column, what));
}

constexpr const char* kShape = "expected a SkyPilot trace {\"metadata\": {\"gap_seconds\": N}, \"data\": [0, 1, ...]}";

// data[i] as "preempted": 1/0 or true/false.
bool preempted(const std::string& source, const JsonValue& item, size_t i) {
  if (item.is_bool()) return item.boolean;
  if (item.is_number() && (item.number == 0.0 || item.number == 1.0)) return item.number == 1.0;
  const std::string got = item.is_number() ? fmt::format("{}", item.number) : json_kind_name(item.kind);
  fail_at(source, item, fmt::format("data[{}] must be 0, 1, true or false, got {}", i, got));
}

}  // namespace

Trace read_skypilot_trace(const JsonValue& root, const std::string& source) {
  if (!root.is_object()) fail_at(source, root, fmt::format("wrong JSON shape: {}, got {}", kShape, json_kind_name(root.kind)));
  const JsonValue* metadata = root.find("metadata");
  const JsonValue* data = root.find("data");
  if (metadata == nullptr || data == nullptr)
    fail_at(source, root, fmt::format("wrong JSON shape: {}; \"{}\" is missing", kShape, metadata == nullptr ? "metadata" : "data"));
  if (!metadata->is_object())
    fail_at(source, *metadata, fmt::format("wrong JSON shape: \"metadata\" must be an object, got {}", json_kind_name(metadata->kind)));
  if (!data->is_array())
    fail_at(source, *data, fmt::format("wrong JSON shape: \"data\" must be an array, got {}", json_kind_name(data->kind)));
  const JsonValue* gap = metadata->find("gap_seconds");
  if (gap == nullptr) fail_at(source, *metadata, "metadata.gap_seconds is missing");
  if (!gap->is_number() || !(gap->number > 0.0) || !(gap->number <= kMaxGapSeconds))
    fail_at(source, *gap, fmt::format("metadata.gap_seconds must be a number > 0 and <= {:g}, got {}", kMaxGapSeconds,
                                      gap->is_number() ? fmt::format("{}", gap->number) : json_kind_name(gap->kind)));
  if (data->items.empty()) fail_at(source, *data, "empty trace: \"data\" has no gaps");

  std::vector<TraceSegment> segments;
  bool ever_available = false;
  for (size_t i = 0; i < data->items.size(); ++i) {
    const bool available = !preempted(source, data->items[i], i);
    ever_available = ever_available || available;
    if (segments.empty() || segments.back().available != available)
      segments.push_back({static_cast<double>(i) * gap->number, available, 0.0});
  }
  if (!ever_available) fail_at(source, *data, "every gap in \"data\" is preempted: spot is never available in this trace");
  Trace trace(source, "skypilot", std::move(segments), static_cast<double>(data->items.size()) * gap->number, true, false);
  trace.set_selection(fmt::format("{} gaps of {} s", data->items.size(), gap->number));
  return trace;
}

}  // namespace frugal::simulate
