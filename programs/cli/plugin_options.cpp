#include "plugin_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include "frugal/sdk/host.hpp"
#include "frugal/sdk/option_decl.hpp"
#include "terminal_text.hpp"

namespace frugal::cli {
namespace {

constexpr double kTwoTo63 = 9223372036854775808.0;

bool has(const frugal_option_info& o, uint32_t flag) { return (o.flags & flag) != 0; }

// A declared bound, nullopt when not declared or infinite (no bound).
std::optional<double> bound(const frugal_option_info& o, uint32_t flag, double value) {
  if (!has(o, flag) || std::isinf(value)) return std::nullopt;
  return value;
}

// Whether a bound shows as an integer (table and JSON): for INT options.
bool as_integer(const frugal_option_info& o, double value) {
  return o.type == FRUGAL_OPTION_INT && std::fabs(value) < kTwoTo63;
}

std::optional<std::string> bound_text(const frugal_option_info& o, uint32_t flag, double value) {
  const auto b = bound(o, flag, value);
  if (!b) return std::nullopt;
  return as_integer(o, *b) ? fmt::format("{}", static_cast<int64_t>(*b)) : fmt::format("{}", *b);
}

json::Json bound_json(const frugal_option_info& o, uint32_t flag, double value) {
  const auto b = bound(o, flag, value);
  if (!b) return nullptr;
  return as_integer(o, *b) ? json::Json(static_cast<int64_t>(*b)) : json::Json(*b);
}

std::string range_text(const frugal_option_info& o) {
  const auto lo = bound_text(o, FRUGAL_OPTION_DECL_HAS_MIN, o.min);
  const auto hi = bound_text(o, FRUGAL_OPTION_DECL_HAS_MAX, o.max);
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

json::Json choices_json(const char* choices) {
  if (choices == nullptr) return nullptr;
  json::Json out = json::Json::array();
  const std::string_view all(choices);
  for (size_t start = 0;;) {
    const size_t bar = all.find('|', start);
    out.push_back(all.substr(start, bar == std::string_view::npos ? bar : bar - start));
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return out;
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

json::Json options_json(const std::vector<frugal_option_info>& options) {
  json::Json out = json::Json::array();
  for (const auto& o : options)
    out.push_back({{"name", o.name},
                   {"type", sdk::option_type_name(o.type)},
                   {"required", has(o, FRUGAL_OPTION_DECL_REQUIRED)},
                   {"default", o.default_value != nullptr ? json::Json(o.default_value) : json::Json(nullptr)},
                   {"min", bound_json(o, FRUGAL_OPTION_DECL_HAS_MIN, o.min)},
                   {"max", bound_json(o, FRUGAL_OPTION_DECL_HAS_MAX, o.max)},
                   {"choices", choices_json(o.choices)},
                   {"directory", has(o, FRUGAL_OPTION_DECL_DIRECTORY)},
                   {"doc", o.doc}});
  return out;
}

}  // namespace frugal::cli
