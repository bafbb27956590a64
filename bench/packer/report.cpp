#include "report.hpp"

#include <algorithm>
#include <cmath>

namespace frugal::bench::packer {

namespace {

// Width in terminal columns: the tables contain a few UTF-8 symbols (≤, ×),
// which are one column but several bytes.
std::size_t columns(const std::string& s) {
  std::size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

void print_row(std::FILE* out, const std::vector<std::string>& cells, const std::vector<std::size_t>& widths,
               Format format) {
  if (format == Format::markdown) {
    std::fputc('|', out);
    for (const auto& cell : cells) std::fprintf(out, " %s |", cell.c_str());
    std::fputc('\n', out);
    return;
  }
  for (std::size_t i = 0; i < cells.size(); ++i) {
    // Text columns left-aligned (the first), numbers right-aligned.
    const std::string pad(widths[i] - columns(cells[i]), ' ');
    if (i == 0)
      std::fprintf(out, "%s%s", cells[i].c_str(), pad.c_str());
    else
      std::fprintf(out, "  %s%s", pad.c_str(), cells[i].c_str());
  }
  std::fputc('\n', out);
}

}  // namespace

void print_table(std::FILE* out, const Table& table, Format format) {
  std::vector<std::size_t> widths(table.headers.size(), 0);
  for (std::size_t i = 0; i < widths.size(); ++i) widths[i] = columns(table.headers[i]);
  for (const auto& row : table.rows) {
    for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i) widths[i] = std::max(widths[i], columns(row[i]));
  }
  if (format == Format::markdown)
    std::fprintf(out, "\n**%s**\n\n", table.title.c_str());
  else
    std::fprintf(out, "\n== %s ==\n", table.title.c_str());
  print_row(out, table.headers, widths, format);
  if (format == Format::markdown) {
    std::fputc('|', out);
    for (std::size_t i = 0; i < table.headers.size(); ++i) std::fputs("---|", out);
    std::fputc('\n', out);
  }
  for (const auto& row : table.rows) print_row(out, row, widths, format);
  if (!table.notes.empty()) std::fputc('\n', out);
  for (const auto& note : table.notes)
    std::fprintf(out, "%s%s\n", format == Format::markdown ? "- " : "  ", note.c_str());
  std::fflush(out);
}

void Verdict::pending(std::string what) {
  if (std::find(pending_.begin(), pending_.end(), what) == pending_.end()) pending_.push_back(std::move(what));
}

void Verdict::print(std::FILE* out) const {
  std::fputc('\n', out);
  if (failures_.empty()) {
    std::fputs("Verdict: all checked targets and invariants met.\n", out);
  } else {
    std::fprintf(out, "Verdict: %zu FAILED:\n", failures_.size());
    for (const auto& f : failures_) std::fprintf(out, "  FAILED: %s\n", f.c_str());
  }
  for (const auto& p : pending_) std::fprintf(out, "  pending (n/a, not judged): %s\n", p.c_str());
  std::fflush(out);
}

std::string fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string percent(double fraction, int decimals) { return fixed(100.0 * fraction, decimals) + " %"; }

std::string seconds_text(double seconds) {
  if (seconds >= 1.0) return fixed(seconds, 2) + " s";
  if (seconds >= 1e-3) return fixed(seconds * 1e3, seconds >= 0.1 ? 0 : 1) + " ms";
  return fixed(seconds * 1e6, 0) + " µs";
}

std::string count_text(long long n) {
  // Binary sizes first: the speed run uses 16 Mi = 2^24 sequences.
  if (n >= (1LL << 20) && n % (1LL << 20) == 0) return std::to_string(n >> 20) + "Mi";
  if (n >= 1000000 && n % 1000000 == 0) return std::to_string(n / 1000000) + "M";
  if (n >= 1000 && n % 1000 == 0) return std::to_string(n / 1000) + "k";
  return std::to_string(n);
}

}  // namespace frugal::bench::packer
