#include "pack_input.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <string_view>

#include "available_memory.hpp"

namespace frugal::cli {
namespace {

double gib(double bytes) { return bytes / static_cast<double>(uint64_t{1} << 30); }

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// A line as it may appear in a message: printable ASCII as is, other bytes
// as \xNN (no terminal control codes), cut after 60 characters.
std::string quoted(std::string_view s) {
  constexpr std::size_t kShown = 60;
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < kShown; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  if (s.size() > kShown) out += "...";
  return "'" + out + "'";
}

// Calls fn(line_number, content) for every line that is not blank or a
// comment, reading at most kMaxLineChars per line.
template <typename Fn>
void for_each_data_line(std::istream& in, const std::string& name, Fn&& fn) {
  std::string buffer(kMaxLineChars + 1, '\0');  // getline stores at most size - 1
  std::size_t line = 0;
  while (true) {
    in.getline(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (in.bad()) throw InputError(fmt::format("cannot read '{}': {}", name, std::strerror(errno)));
    if (in.fail() && !in.eof())
      throw InputError(fmt::format("{}:{}: line longer than {} characters", name, line + 1, kMaxLineChars));
    if (got == 0 && in.eof()) return;
    ++line;
    // gcount counts the newline when one was extracted.
    const std::size_t chars = in.eof() ? got : got - 1;
    const std::string_view content = trim(std::string_view(buffer.data(), chars));
    if (!content.empty() && content.front() != '#') fn(line, content);
    if (in.eof()) return;
  }
}

// Parses one integer from the front of `s`, advancing it; throws naming the place.
int64_t take_int(std::string_view& s, const std::string& name, std::size_t line, std::string_view whole,
                 const char* what) {
  int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec == std::errc::result_out_of_range)
    throw InputError(fmt::format("{}:{}: {} out of range (int64) in {}", name, line, what, quoted(whole)));
  if (ec != std::errc() || ptr == s.data())
    throw InputError(fmt::format("{}:{}: expected an integer {}, got {}", name, line, what, quoted(whole)));
  s.remove_prefix(static_cast<std::size_t>(ptr - s.data()));
  return value;
}

void expect_end(std::string_view rest, const std::string& name, std::size_t line, std::string_view whole,
                const char* format) {
  if (!trim(rest).empty())
    throw InputError(fmt::format("{}:{}: unexpected text after the {} in {}", name, line, format, quoted(whole)));
}

// The running totals of a file, checked line by line against the limits
// before the line's sequences are stored.
class Totals {
 public:
  Totals(const std::string& name, const InputLimits& limits) : name_(name), limits_(limits) {}

  // `count` sequences of `length` (>= 1) on `line`.
  void add(std::size_t line, int64_t length, int64_t count) {
    if (length > limits_.max_len && limits_.overlong == Overlong::error)
      throw InputError(fmt::format("{}:{}: length {} > --max-len {} (--overlong truncate or split accept it)", name_,
                                   line, length, limits_.max_len));
    const uint64_t pieces = limits_.overlong == Overlong::split && length > limits_.max_len
                                ? static_cast<uint64_t>((length - 1) / limits_.max_len + 1)
                                : 1;
    uint64_t more = 0;
    if (__builtin_mul_overflow(pieces, static_cast<uint64_t>(count), &more) ||
        __builtin_add_overflow(units_, more, &units_))
      units_ = std::numeric_limits<uint64_t>::max();
    if (units_ > limits_.max_units)
      throw InputError(fmt::format(
          "{}:{}: length {}, count {} ({} unit{} each): the input reaches {} units (about {:.2f} GiB), over the "
          "limit of {} units ({})",
          name_, line, length, count, pieces, pieces == 1 ? "" : "s", units_,
          gib(static_cast<double>(units_) * static_cast<double>(kBytesPerUnit)), limits_.max_units, limits_.why));
    int64_t tokens = 0;
    if (__builtin_mul_overflow(length, count, &tokens) || __builtin_add_overflow(tokens_, tokens, &tokens_))
      throw InputError(fmt::format("{}:{}: the lengths add up to more than {} tokens (int64)", name_, line,
                                   std::numeric_limits<int64_t>::max()));
  }

 private:
  const std::string& name_;
  const InputLimits& limits_;
  uint64_t units_ = 0;
  int64_t tokens_ = 0;
};

std::ifstream open_input(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
  return in;
}

}  // namespace

InputLimits memory_limits(int64_t max_len, Overlong overlong) {
  InputLimits limits;
  limits.max_len = max_len;
  limits.overlong = overlong;
  const auto [bytes, source] = memory::available_memory();
  if (bytes == 0 || bytes / kBytesPerUnit >= limits.max_units) return limits;
  limits.max_units = bytes / kBytesPerUnit;
  limits.why = fmt::format("{:.2f} GiB of memory available ({}) / {} bytes per unit", gib(static_cast<double>(bytes)),
                           source, kBytesPerUnit);
  return limits;
}

std::vector<int64_t> read_lengths(std::istream& in, const std::string& name, const InputLimits& limits) {
  std::vector<int64_t> lengths;
  Totals totals(name, limits);
  for_each_data_line(in, name, [&](std::size_t line, std::string_view content) {
    std::string_view rest = content;
    const int64_t len = take_int(rest, name, line, content, "length");
    expect_end(rest, name, line, content, "length (one length per line)");
    if (len < 1) throw InputError(fmt::format("{}:{}: length must be >= 1, got {}", name, line, len));
    totals.add(line, len, 1);
    lengths.push_back(len);
  });
  if (lengths.empty()) throw InputError(fmt::format("{}: no lengths (empty input)", name));
  return lengths;
}

Histogram read_histogram(std::istream& in, const std::string& name, const InputLimits& limits) {
  Histogram h;
  Totals totals(name, limits);
  for_each_data_line(in, name, [&](std::size_t line, std::string_view content) {
    std::string_view rest = content;
    const int64_t len = take_int(rest, name, line, content, "length");
    if (rest.empty() || !is_space(rest.front()))
      throw InputError(fmt::format("{}:{}: expected 'length count', got {}", name, line, quoted(content)));
    rest = trim(rest);
    const int64_t count = take_int(rest, name, line, content, "count");
    expect_end(rest, name, line, content, "count ('length count' per line)");
    if (len < 1) throw InputError(fmt::format("{}:{}: length must be >= 1, got {}", name, line, len));
    if (count < 0) throw InputError(fmt::format("{}:{}: count must be >= 0, got {}", name, line, count));
    // A zero count holds no sequence: not stored, so a file of them costs nothing.
    if (count == 0) return;
    totals.add(line, len, count);
    h.lengths.push_back(len);
    h.counts.push_back(count);
    h.sequences += static_cast<uint64_t>(count);
  });
  if (h.sequences == 0) throw InputError(fmt::format("{}: no sequences (empty input or every count is 0)", name));
  return h;
}

std::vector<int64_t> read_lengths_file(const std::string& path, const InputLimits& limits) {
  std::ifstream in = open_input(path);
  return read_lengths(in, path, limits);
}

Histogram read_histogram_file(const std::string& path, const InputLimits& limits) {
  std::ifstream in = open_input(path);
  return read_histogram(in, path, limits);
}

}  // namespace frugal::cli
