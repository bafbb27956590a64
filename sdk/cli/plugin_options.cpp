#include "plugin_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include "frugal/sdk/host.hpp"
#include "frugal/sdk/option_decl.hpp"
#include "json_writer.hpp"

namespace frugal::cli {
namespace {

constexpr double kTwoTo63 = 9223372036854775808.0;

bool has(const frugal_option_info& o, uint32_t flag) { return (o.flags & flag) != 0; }

// A declared bound as a JSON number: an integer for INT options, the
// shortest round-trip text for doubles; nullopt when not declared or
// infinite (no bound, and JSON has no infinity).
std::optional<std::string> bound_number(const frugal_option_info& o, uint32_t flag, double value) {
  if (!has(o, flag) || std::isinf(value)) return std::nullopt;
  if (o.type == FRUGAL_OPTION_INT && std::fabs(value) < kTwoTo63)
    return fmt::format("{}", static_cast<int64_t>(value));
  return fmt::format("{}", value);
}

std::string range_text(const frugal_option_info& o) {
  const auto lo = bound_number(o, FRUGAL_OPTION_DECL_HAS_MIN, o.min);
  const auto hi = bound_number(o, FRUGAL_OPTION_DECL_HAS_MAX, o.max);
  if (lo && hi) return fmt::format("[{}, {}]", *lo, *hi);
  if (lo) return ">= " + *lo;
  if (hi) return "<= " + *hi;
  return "-";
}

std::string type_text(const frugal_option_info& o) {
  const bool directory = has(o, FRUGAL_OPTION_DECL_DIRECTORY);
  return std::string(sdk::option_type_name(o.type)) + (directory ? " (directory)" : "");
}

// "required", the default's text, or "-" (no default: absence has a
// meaning of its own, which the doc gives).
std::string default_text(const frugal_option_info& o) {
  if (has(o, FRUGAL_OPTION_DECL_REQUIRED)) return "required";
  return o.default_value != nullptr ? terminal_text(o.default_value) : "-";
}

std::string json_or_null(const std::optional<std::string>& value) { return value ? *value : "null"; }

std::string choices_json(const char* choices) {
  if (choices == nullptr) return "null";
  std::string out = "[";
  const std::string_view all(choices);
  for (size_t start = 0;;) {
    const size_t bar = all.find('|', start);
    out += (start == 0 ? "" : ", ") + json_string(all.substr(start, bar == std::string_view::npos ? bar : bar - start));
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return out + "]";
}

}  // namespace

std::vector<frugal_option_info> strategy_options(const frugal_context* context, size_t plugin, size_t strategy,
                                                 size_t count) {
  std::vector<frugal_option_info> out;
  for (size_t i = 0; i < count; ++i) {
    frugal_option_info info{};
    info.struct_size = sizeof(info);
    host::check(frugal_context_strategy_option(context, plugin, strategy, i, &info));
    out.push_back(info);
  }
  return out;
}

std::string options_table(const std::vector<frugal_option_info>& options, const std::string& indent) {
  if (options.empty()) return indent + "(none declared)\n";
  using Row = std::array<std::string, 6>;
  std::vector<Row> rows{{"option", "type", "default", "range", "choices", "doc"}};
  for (const auto& o : options)
    rows.push_back({terminal_text(o.name), type_text(o), default_text(o), range_text(o),
                    o.choices != nullptr ? terminal_text(o.choices) : "-", terminal_text(o.doc)});
  std::array<size_t, 6> width{};
  for (const Row& row : rows)
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  std::string out;
  for (const Row& row : rows) {
    out += indent;
    // The doc, last, is not padded.
    for (size_t i = 0; i + 1 < row.size(); ++i) out += fmt::format("{:<{}}  ", row[i], width[i]);
    out += row.back() + "\n";
  }
  return out;
}

std::string options_json(const std::vector<frugal_option_info>& options) {
  std::string out = "[";
  for (size_t i = 0; i < options.size(); ++i) {
    const auto& o = options[i];
    out += fmt::format(
        "{}{{\"name\": {}, \"type\": \"{}\", \"required\": {}, \"default\": {}, \"min\": {}, \"max\": {}, "
        "\"choices\": {}, \"directory\": {}, \"doc\": {}}}",
        i == 0 ? "" : ", ", json_string(o.name), sdk::option_type_name(o.type),
        has(o, FRUGAL_OPTION_DECL_REQUIRED),
        o.default_value != nullptr ? json_string(o.default_value) : "null",
        json_or_null(bound_number(o, FRUGAL_OPTION_DECL_HAS_MIN, o.min)),
        json_or_null(bound_number(o, FRUGAL_OPTION_DECL_HAS_MAX, o.max)), choices_json(o.choices),
        has(o, FRUGAL_OPTION_DECL_DIRECTORY), json_string(o.doc));
  }
  return out + "]";
}

}  // namespace frugal::cli
