#include "pack_input.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string_view>

namespace frugal::cli {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  return text;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// Calls fn(line_number, content) for every line that is not blank or a comment.
template <typename Fn>
void for_each_data_line(const std::string& text, Fn&& fn) {
  std::size_t start = 0;
  std::size_t line = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    ++line;
    const std::string_view content = trim(std::string_view(text).substr(start, end - start));
    if (!content.empty() && content.front() != '#') fn(line, content);
    start = end + 1;
  }
}

// Parses one integer from the front of `s`, advancing it; throws naming the place.
int64_t take_int(std::string_view& s, const std::string& path, std::size_t line, std::string_view whole,
                 const char* what) {
  int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec == std::errc::result_out_of_range)
    throw InputError(fmt::format("{}:{}: {} out of range in '{}'", path, line, what, whole));
  if (ec != std::errc() || ptr == s.data())
    throw InputError(fmt::format("{}:{}: expected an integer {}, got '{}'", path, line, what, whole));
  s.remove_prefix(static_cast<std::size_t>(ptr - s.data()));
  return value;
}

void expect_end(std::string_view rest, const std::string& path, std::size_t line, std::string_view whole,
                const char* format) {
  if (!trim(rest).empty())
    throw InputError(fmt::format("{}:{}: unexpected text after the {} in '{}'", path, line, format, whole));
}

}  // namespace

std::vector<int64_t> read_lengths_file(const std::string& path) {
  const std::string text = slurp(path);
  std::vector<int64_t> lengths;
  lengths.reserve(text.size() / 4);
  for_each_data_line(text, [&](std::size_t line, std::string_view content) {
    std::string_view rest = content;
    const int64_t len = take_int(rest, path, line, content, "length");
    expect_end(rest, path, line, content, "length (one length per line)");
    if (len < 1) throw InputError(fmt::format("{}:{}: length must be >= 1, got {}", path, line, len));
    lengths.push_back(len);
  });
  if (lengths.empty()) throw InputError(fmt::format("{}: no lengths (empty input)", path));
  return lengths;
}

Histogram read_histogram_file(const std::string& path) {
  const std::string text = slurp(path);
  Histogram h;
  int64_t total = 0;
  for_each_data_line(text, [&](std::size_t line, std::string_view content) {
    std::string_view rest = content;
    const int64_t len = take_int(rest, path, line, content, "length");
    if (rest.empty() || !is_space(rest.front()))
      throw InputError(fmt::format("{}:{}: expected 'length count', got '{}'", path, line, content));
    rest = trim(rest);
    const int64_t count = take_int(rest, path, line, content, "count");
    expect_end(rest, path, line, content, "count ('length count' per line)");
    if (len < 1) throw InputError(fmt::format("{}:{}: length must be >= 1, got {}", path, line, len));
    if (count < 0) throw InputError(fmt::format("{}:{}: count must be >= 0, got {}", path, line, count));
    if (count > (int64_t{1} << 40) - total)
      throw InputError(fmt::format("{}:{}: more than 2^40 sequences in all", path, line));
    total += count;
    h.lengths.push_back(len);
    h.counts.push_back(count);
  });
  if (total == 0) throw InputError(fmt::format("{}: no sequences (empty input or every count is 0)", path));
  return h;
}

}  // namespace frugal::cli
