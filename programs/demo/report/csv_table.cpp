// CSV rows with named, checked fields.
#include "csv_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace frugal_demo {

std::optional<std::vector<std::string>> split_csv_line(std::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false, after_quote = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c != '"') {
        fields.back() += c;
      } else if (i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else {
        quoted = false;
        after_quote = true;
      }
    } else if (c == ',') {
      fields.emplace_back();
      after_quote = false;
    } else if (after_quote) {
      return std::nullopt;
    } else if (c == '"' && fields.back().empty()) {
      quoted = true;
    } else {
      fields.back() += c;
    }
  }
  if (quoted) return std::nullopt;
  return fields;
}

std::optional<CsvTable> CsvTable::read(const std::filesystem::path& file, const std::vector<std::string>& required) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    if (!std::filesystem::exists(file)) return std::nullopt;
    throw std::runtime_error(fmt::format("{}: cannot read", file.string()));
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CsvTable table;
  table.file_ = file;
  std::size_t start = 0, line_no = 0;
  // Only complete lines: the text after the last newline is a torn write.
  for (std::size_t end = text.find('\n'); end != std::string::npos; start = end + 1, end = text.find('\n', start)) {
    ++line_no;
    std::string_view line(text.data() + start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    auto fields = split_csv_line(line);
    if (!fields)
      throw std::runtime_error(fmt::format("{}:{}: unbalanced quotes in '{}'", file.string(), line_no, line));
    if (line_no == 1) {
      table.header_ = std::move(*fields);
      for (const auto& column : required)
        if (std::find(table.header_.begin(), table.header_.end(), column) == table.header_.end())
          throw std::runtime_error(fmt::format("{}:1: the header has no column '{}' (expected columns: {})",
                                               file.string(), column, fmt::join(required, ",")));
      continue;
    }
    if (fields->size() != table.header_.size())
      throw std::runtime_error(fmt::format("{}:{}: {} fields where the header has {}", file.string(), line_no,
                                           fields->size(), table.header_.size()));
    table.rows_.push_back(CsvRow{line_no, std::move(*fields)});
  }
  return table;
}

void CsvTable::fail(const CsvRow& row, std::string_view column, std::string_view what) const {
  throw std::runtime_error(fmt::format("{}:{}: column '{}': {}", file_.string(), row.line, column, what));
}

const std::string& CsvTable::field(const CsvRow& row, std::string_view column) const {
  const auto it = std::find(header_.begin(), header_.end(), column);
  if (it == header_.end()) fail(row, column, "no such column in the header");
  return row.fields[static_cast<std::size_t>(it - header_.begin())];
}

std::string CsvTable::text(const CsvRow& row, std::string_view column) const { return field(row, column); }

std::int64_t CsvTable::integer(const CsvRow& row, std::string_view column, std::int64_t min, std::int64_t max) const {
  const std::string& s = field(row, column);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size())
    fail(row, column, fmt::format("'{}' is not an integer", s));
  if (value < min || value > max) fail(row, column, fmt::format("{} is outside [{}, {}]", value, min, max));
  return value;
}

double CsvTable::number(const CsvRow& row, std::string_view column, bool finite_only) const {
  const std::string& s = field(row, column);
  double value = 0.0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || (finite_only && !std::isfinite(value)))
    fail(row, column, fmt::format("'{}' is not a {}number", s, finite_only ? "finite " : ""));
  return value;
}

std::string CsvTable::choice(const CsvRow& row, std::string_view column,
                             const std::vector<std::string_view>& allowed) const {
  const std::string& s = field(row, column);
  if (std::find(allowed.begin(), allowed.end(), s) == allowed.end())
    fail(row, column, fmt::format("'{}' is not one of: {}", s, fmt::join(allowed, ", ")));
  return s;
}

}  // namespace frugal_demo
