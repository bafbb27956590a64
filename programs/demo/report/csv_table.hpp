// Reading the metrics CSV files back: rows by column name, every value
// checked, every error naming file:line and the column.
#pragma once

#include <climits>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace frugal_demo {

struct CsvRow {
  std::size_t line = 0;  // 1-based line number in the file
  std::vector<std::string> fields;
};

class CsvTable {
 public:
  // Reads `file`; nullopt when it does not exist. The header must name
  // every column of `required` (other columns are ignored). A last line
  // without its newline is skipped: a writer killed mid-line left it.
  static std::optional<CsvTable> read(const std::filesystem::path& file, const std::vector<std::string>& required);

  [[nodiscard]] const std::vector<CsvRow>& rows() const { return rows_; }

  [[nodiscard]] std::string text(const CsvRow& row, std::string_view column) const;
  // An integer within [min, max].
  [[nodiscard]] std::int64_t integer(const CsvRow& row, std::string_view column, std::int64_t min = INT64_MIN,
                                     std::int64_t max = INT64_MAX) const;
  // A small non-negative count or index (attempt, layer, nodes...).
  [[nodiscard]] int index(const CsvRow& row, std::string_view column) const {
    return static_cast<int>(integer(row, column, 0, 1'000'000'000));
  }
  // finite_only = false admits nan and inf: a diverged loss is a finding
  // to report, not a malformed file.
  [[nodiscard]] double number(const CsvRow& row, std::string_view column, bool finite_only = true) const;
  // One of `allowed`, or an error listing them.
  [[nodiscard]] std::string choice(const CsvRow& row, std::string_view column,
                                   const std::vector<std::string_view>& allowed) const;

 private:
  [[noreturn]] void fail(const CsvRow& row, std::string_view column, std::string_view what) const;
  [[nodiscard]] const std::string& field(const CsvRow& row, std::string_view column) const;

  std::filesystem::path file_;
  std::vector<std::string> header_;
  std::vector<CsvRow> rows_;
};

// Splits one CSV line (RFC 4180 quoting); nullopt on an unterminated quote
// or text after a closing quote.
std::optional<std::vector<std::string>> split_csv_line(std::string_view line);

}  // namespace frugal_demo
