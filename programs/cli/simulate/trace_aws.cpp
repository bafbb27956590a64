// AWS spot price history, as the JSON of describe-spot-price-history or as
// CSV/text rows. The API returns rows newest first and mixes zones,
// instance types and products: one series is picked, sorted by time and
// replayed as a step function (each price holds until the next row).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

#include "input_error.hpp"
#include "input_limits.hpp"
#include "json_input.hpp"
#include "text_input.hpp"
#include "trace_readers.hpp"

namespace frugal::simulate {
namespace {

struct PriceRow {
  std::string zone, instance_type, product;
  double price = 0.0;
  double time_s = 0.0;  // seconds since 1970
  std::string where;    // "source:line" or "source: SpotPriceHistory[i]", for errors
};

using SeriesKey = std::tuple<std::string, std::string, std::string>;

std::string series_name(const SeriesKey& key) {
  const auto& [zone, type, product] = key;
  return fmt::format("{} {} {}", zone, type, product.empty() ? "(no product)" : product);
}

bool matches(const PriceRow& row, const TraceSelection& selection) {
  return (selection.zone.empty() || row.zone == selection.zone) &&
         (selection.instance_type.empty() || row.instance_type == selection.instance_type) &&
         (selection.product.empty() || row.product == selection.product);
}

// Picks the series, sorts it and turns it into segments.
Trace build_price_trace(std::vector<PriceRow> rows, const std::string& source, const TraceSelection& selection) {
  if (rows.empty()) throw InputError(fmt::format("{}: empty trace: no price rows", source));
  std::map<SeriesKey, size_t> counts;
  for (const auto& row : rows)
    if (matches(row, selection)) ++counts[{row.zone, row.instance_type, row.product}];
  if (counts.empty()) {
    std::map<SeriesKey, size_t> all;
    for (const auto& row : rows) ++all[{row.zone, row.instance_type, row.product}];
    std::string listing;
    for (const auto& [key, n] : all)
      listing += fmt::format("{}{} ({} rows)", listing.empty() ? "" : ", ", series_name(key), n);
    throw InputError(fmt::format("{}: no rows match zone '{}', instance type '{}', product '{}'; the file has: {}",
                                 source, selection.zone, selection.instance_type, selection.product, listing));
  }
  // std::map iterates keys in order, so the first maximum is the smallest key.
  const auto chosen = std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) {
                        return a.second < b.second;
                      })->first;
  std::vector<PriceRow> series;
  for (auto& row : rows)
    if (SeriesKey{row.zone, row.instance_type, row.product} == chosen) series.push_back(std::move(row));
  std::stable_sort(series.begin(), series.end(),
                   [](const PriceRow& a, const PriceRow& b) { return a.time_s < b.time_s; });

  std::vector<TraceSegment> segments;
  const double origin = series.front().time_s;
  for (size_t i = 0; i < series.size(); ++i) {
    if (i > 0 && series[i].time_s == series[i - 1].time_s) {
      if (series[i].price != series[i - 1].price)
        throw InputError(fmt::format("{}: two prices for the same time ({} and {}; the other row is {})",
                                     series[i].where, series[i - 1].price, series[i].price, series[i - 1].where));
      continue;  // the same row twice (overlapping downloads)
    }
    segments.push_back({series[i].time_s - origin, true, series[i].price});
  }
  // The newest price lasts as long as the one before it did (the history
  // records changes, not the end of the query window).
  const double last = segments.back().start_s;
  const double period = segments.size() > 1 ? last + (last - segments[segments.size() - 2].start_s) : 3600.0;
  Trace trace(source, "aws", std::move(segments), period, false, true);
  trace.set_selection(series_name(chosen));
  return trace;
}

void check_price(double price, const std::string& where) {
  if (price < 0.0) throw InputError(fmt::format("{}: negative price {}", where, price));
  if (price > kMaxPrice)
    throw InputError(fmt::format("{}: price {} is more than the limit of {:g}", where, price, kMaxPrice));
}

// ---- JSON ------------------------------------------------------------------

std::string json_string_field(const JsonValue& row, const char* name, const std::string& where, bool required) {
  const JsonValue* value = json_member(row, name);
  if (value == nullptr) {
    if (!required) return "";
    throw InputError(fmt::format("{}: \"{}\" is missing", where, name));
  }
  if (!value->is_string())
    throw InputError(fmt::format("{}.{} must be a string, got {}", where, name, json_kind_name(*value)));
  return value->get<std::string>();
}

PriceRow json_row(const JsonValue& row, const std::string& where) {
  if (!row.is_object()) throw InputError(fmt::format("{} must be an object, got {}", where, json_kind_name(row)));
  PriceRow out;
  out.where = where;
  out.zone = json_string_field(row, "AvailabilityZone", where, true);
  out.instance_type = json_string_field(row, "InstanceType", where, true);
  out.product = json_string_field(row, "ProductDescription", where, false);
  const JsonValue* price = json_member(row, "SpotPrice");
  if (price == nullptr) throw InputError(fmt::format("{}: \"SpotPrice\" is missing", where));
  // The API writes the price as a string ("12.3450"); accept a number too.
  std::optional<double> value;
  if (price->is_number()) value = json_number(*price);
  if (price->is_string()) value = parse_finite(price->get_ref<const std::string&>());
  if (!value)
    throw InputError(
        fmt::format("{}.SpotPrice is not a number: {}", where,
                    price->is_string() ? "\"" + price->get<std::string>() + "\"" : json_kind_name(*price)));
  check_price(*value, where + ".SpotPrice");
  out.price = *value;
  const std::string stamp = json_string_field(row, "Timestamp", where, true);
  const auto time = parse_timestamp(stamp);
  if (!time) throw InputError(fmt::format("{}.Timestamp is not an ISO 8601 time: \"{}\"", where, stamp));
  out.time_s = *time;
  return out;
}

// ---- CSV / text ------------------------------------------------------------

enum Column { kZone, kType, kProduct, kPrice, kTime, kColumns };

std::string normalized(std::string_view name) {
  std::string out;
  for (const char c : name)
    if (c != '_' && c != ' ' && c != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

int column_of(std::string_view header) {
  const std::string n = normalized(header);
  if (n == "availabilityzone" || n == "az" || n == "zone") return kZone;
  if (n == "instancetype" || n == "type") return kType;
  if (n == "productdescription" || n == "product") return kProduct;
  if (n == "spotprice" || n == "price") return kPrice;
  if (n == "timestamp" || n == "time") return kTime;
  return -1;
}

}  // namespace

bool looks_like_aws_header(std::string_view line) {
  for (const auto field : split_fields(line))
    if (column_of(field) == kZone || column_of(field) == kType) return true;
  return false;
}

Trace read_aws_json_trace(const JsonValue& root, const std::string& source, const TraceSelection& selection) {
  const JsonValue* history = json_member(root, "SpotPriceHistory");
  if (history == nullptr || !history->is_array())
    fail_in(source,
            "wrong JSON shape: expected {\"SpotPriceHistory\": [...]} as written by aws ec2 "
            "describe-spot-price-history");
  std::vector<PriceRow> rows;
  rows.reserve(history->size());
  for (size_t i = 0; i < history->size(); ++i)
    rows.push_back(json_row((*history)[i], fmt::format("{}: SpotPriceHistory[{}]", source, i)));
  return build_price_trace(std::move(rows), source, selection);
}

Trace read_aws_csv_trace(std::string_view text, const std::string& source, const TraceSelection& selection) {
  const auto lines = content_lines(text);
  int columns[kColumns] = {0, 1, 2, 3, 4};  // the tool's order when there is no header
  size_t first = 0;
  if (!lines.empty() && looks_like_aws_header(lines[0].text)) {
    std::fill(std::begin(columns), std::end(columns), -1);
    const auto names = split_fields(lines[0].text);
    for (size_t i = 0; i < names.size(); ++i)
      if (const int c = column_of(names[i]); c >= 0) columns[c] = static_cast<int>(i);
    for (const int c : {kZone, kType, kPrice, kTime})
      if (columns[c] < 0)
        throw InputError(fmt::format("{}:{}: the header names no {} column", source, lines[0].number,
                                     c == kZone    ? "availability zone"
                                     : c == kType  ? "instance type"
                                     : c == kPrice ? "price"
                                                   : "timestamp"));
    first = 1;
  }
  std::vector<PriceRow> rows;
  for (size_t l = first; l < lines.size(); ++l) {
    auto fields = split_fields(lines[l].text);
    if (!fields.empty() && fields[0] == "SPOTPRICEHISTORY") fields.erase(fields.begin());
    const std::string where = fmt::format("{}:{}", source, lines[l].number);
    const int needed = *std::max_element(std::begin(columns), std::end(columns)) + 1;
    if (static_cast<int>(fields.size()) < needed)
      throw InputError(fmt::format("{}: expected {} fields (zone, instance type, product, price, timestamp), got {}",
                                   where, needed, fields.size()));
    PriceRow row;
    row.where = where;
    row.zone = std::string(fields[static_cast<size_t>(columns[kZone])]);
    row.instance_type = std::string(fields[static_cast<size_t>(columns[kType])]);
    if (columns[kProduct] >= 0) row.product = std::string(fields[static_cast<size_t>(columns[kProduct])]);
    const std::string_view price_text = fields[static_cast<size_t>(columns[kPrice])];
    const auto price = parse_finite(price_text);
    if (!price) throw InputError(fmt::format("{}: price is not a number: '{}'", where, price_text));
    check_price(*price, where);
    row.price = *price;
    const std::string_view stamp = fields[static_cast<size_t>(columns[kTime])];
    const auto time = parse_timestamp(stamp);
    if (!time) throw InputError(fmt::format("{}: timestamp is not an ISO 8601 time: '{}'", where, stamp));
    row.time_s = *time;
    rows.push_back(std::move(row));
  }
  return build_price_trace(std::move(rows), source, selection);
}

}  // namespace frugal::simulate
