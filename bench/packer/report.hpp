// Output of the benchmark: tables printed either aligned for a terminal or as
// Markdown ready to paste into docs/benchmarks.md, and the verdict that
// decides the exit status.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace frugal::bench::packer {

struct Table {
  std::string title;
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> notes;  // printed under the table

  void add(std::vector<std::string> row) { rows.push_back(std::move(row)); }
};

enum class Format { text, markdown };

void print_table(std::FILE* out, const Table& table, Format format);

// Failed targets and broken invariants, collected over a whole run; the
// program exits non-zero when there is any.
class Verdict {
 public:
  void fail(std::string what) { failures_.push_back(std::move(what)); }
  void pending(std::string what);  // once per distinct message
  [[nodiscard]] bool ok() const noexcept { return failures_.empty(); }
  // "All targets met", or the list of failures; then what is pending.
  void print(std::FILE* out) const;

 private:
  std::vector<std::string> failures_;
  std::vector<std::string> pending_;
};

// Number formatting shared by the tables.
[[nodiscard]] std::string fixed(double value, int decimals);
[[nodiscard]] std::string percent(double fraction, int decimals);  // 0.0123 -> "1.23 %"
[[nodiscard]] std::string seconds_text(double seconds);            // "1.23 s", "45.6 ms", "789 us"
[[nodiscard]] std::string count_text(long long n);                 // 1 << 24 -> "16Mi", 20000 -> "20k"

}  // namespace frugal::bench::packer
