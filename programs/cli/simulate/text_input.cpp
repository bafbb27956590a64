#include "text_input.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "input_error.hpp"
#include "input_limits.hpp"

namespace frugal::simulate {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// Reads `count` decimal digits at s[pos]; advances pos.
std::optional<int> fixed_digits(std::string_view s, size_t& pos, size_t count) {
  if (pos + count > s.size()) return std::nullopt;
  int value = 0;
  for (size_t i = 0; i < count; ++i) {
    const char c = s[pos + i];
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  pos += count;
  return value;
}

// Days from 1970-01-01 to a proleptic Gregorian date (the well-known
// era-based civil calendar conversion).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

int days_in_month(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

}  // namespace

std::string read_text_file(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) throw InputError(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  std::string text;
  char buffer[65536];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) {
    if (text.size() + n > kMaxInputBytes) {
      std::fclose(file);
      throw InputError(fmt::format("cannot read '{}': larger than the limit of {} MiB for a job, trace or loss log",
                                   path, kMaxInputBytes >> 20));
    }
    text.append(buffer, n);
  }
  const bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed) throw InputError(fmt::format("cannot read '{}': read error", path));
  return text;
}

std::vector<TextLine> content_lines(std::string_view text) {
  std::vector<TextLine> lines;
  uint32_t number = 0;
  while (!text.empty()) {
    ++number;
    const size_t end = text.find('\n');
    const std::string_view line = trim(text.substr(0, end));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (line.empty() || line.front() == '#') continue;
    lines.push_back({number, line});
  }
  return lines;
}

std::vector<std::string_view> split_fields(std::string_view line) {
  const char separator = line.find(',') != std::string_view::npos ? ',' : '\t';
  std::vector<std::string_view> fields;
  for (;;) {
    const size_t end = line.find(separator);
    fields.push_back(trim(line.substr(0, end)));
    if (end == std::string_view::npos) return fields;
    line.remove_prefix(end + 1);
  }
}

std::optional<double> parse_finite(std::string_view text) {
  if (text.empty()) return std::nullopt;
  // from_chars takes no '+'; accept it, as spreadsheets write it.
  if (text.front() == '+') text.remove_prefix(1);
  double value = 0.0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<double> parse_timestamp(std::string_view text) {
  size_t pos = 0;
  const auto year = fixed_digits(text, pos, 4);
  if (!year || pos >= text.size() || text[pos++] != '-') return std::nullopt;
  const auto month = fixed_digits(text, pos, 2);
  if (!month || *month < 1 || *month > 12 || pos >= text.size() || text[pos++] != '-') return std::nullopt;
  const auto day = fixed_digits(text, pos, 2);
  if (!day || *day < 1 || *day > days_in_month(*year, *month)) return std::nullopt;
  if (pos >= text.size() || (text[pos] != 'T' && text[pos] != ' ')) return std::nullopt;
  ++pos;
  const auto hour = fixed_digits(text, pos, 2);
  if (!hour || *hour > 23 || pos >= text.size() || text[pos++] != ':') return std::nullopt;
  const auto minute = fixed_digits(text, pos, 2);
  if (!minute || *minute > 59 || pos >= text.size() || text[pos++] != ':') return std::nullopt;
  const auto second = fixed_digits(text, pos, 2);
  if (!second || *second > 60) return std::nullopt;
  double fraction = 0.0;
  if (pos < text.size() && text[pos] == '.') {
    double scale = 0.1;
    ++pos;
    const size_t digits_start = pos;
    for (; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos, scale /= 10)
      fraction += (text[pos] - '0') * scale;
    if (pos == digits_start) return std::nullopt;
  }
  int64_t zone_s = 0;
  if (pos < text.size() && text[pos] == 'Z') {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    const int sign = text[pos++] == '-' ? -1 : 1;
    const auto zone_h = fixed_digits(text, pos, 2);
    if (!zone_h || *zone_h > 23) return std::nullopt;
    if (pos < text.size() && text[pos] == ':') ++pos;
    const auto zone_m = fixed_digits(text, pos, 2);
    if (!zone_m || *zone_m > 59) return std::nullopt;
    zone_s = sign * (*zone_h * 3600 + *zone_m * 60);
  }
  if (pos != text.size()) return std::nullopt;
  const int64_t days = days_from_civil(*year, *month, *day);
  const int64_t seconds = days * 86400 + *hour * 3600 + *minute * 60 + *second - zone_s;
  return static_cast<double>(seconds) + fraction;
}

}  // namespace frugal::simulate
