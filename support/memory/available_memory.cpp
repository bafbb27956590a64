#include "available_memory.hpp"

#include <unistd.h>

#include <charconv>
#include <fstream>
#include <limits>
#include <sstream>

namespace frugal::memory {

std::optional<uint64_t> mem_available_bytes(std::string_view meminfo_text) {
  constexpr std::string_view kKey = "MemAvailable:";
  std::size_t start = 0;
  while (start < meminfo_text.size()) {
    std::size_t end = meminfo_text.find('\n', start);
    if (end == std::string_view::npos) end = meminfo_text.size();
    std::string_view line = meminfo_text.substr(start, end - start);
    start = end + 1;
    if (!line.starts_with(kKey)) continue;
    line.remove_prefix(kKey.size());
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    uint64_t kib = 0;
    const auto [rest, ec] = std::from_chars(line.data(), line.data() + line.size(), kib);
    if (ec != std::errc() || rest == line.data()) return std::nullopt;
    std::string_view unit(rest, static_cast<std::size_t>(line.data() + line.size() - rest));
    while (!unit.empty() && (unit.front() == ' ' || unit.front() == '\t')) unit.remove_prefix(1);
    while (!unit.empty() && (unit.back() == ' ' || unit.back() == '\r')) unit.remove_suffix(1);
    if (unit != "kB" || kib > std::numeric_limits<uint64_t>::max() / 1024) return std::nullopt;
    return kib * 1024;
  }
  return std::nullopt;
}

AvailableMemory available_memory(const std::string& meminfo_path) {
  if (std::ifstream in(meminfo_path); in) {
    std::ostringstream text;
    text << in.rdbuf();
    if (const auto bytes = mem_available_bytes(text.str())) return {*bytes, "MemAvailable in " + meminfo_path};
  }
  const long pages = ::sysconf(_SC_AVPHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0)
    return {static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size), "free pages (_SC_AVPHYS_PAGES)"};
  return {};
}

}  // namespace frugal::memory
