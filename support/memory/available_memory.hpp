// How much memory this machine can still hand out: what the core's packer
// and the CLI's `frugal pack` weigh their inputs against before they build
// anything of that size.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace frugal::memory {

struct AvailableMemory {
  uint64_t bytes = 0;  // 0: not known
  std::string source;  // where `bytes` came from, as a message may name it; empty when not known
};

// The MemAvailable line of a /proc/meminfo text, in bytes (the file says
// kB, meaning KiB); nullopt when no line reads "MemAvailable: <n> kB".
std::optional<uint64_t> mem_available_bytes(std::string_view meminfo_text);

// MemAvailable from `meminfo_path` (the kernel's estimate of what can be
// allocated without swapping), else the free pages of sysconf
// (_SC_AVPHYS_PAGES, which ignores the page cache the kernel would give
// back), else {0, ""}.
AvailableMemory available_memory(const std::string& meminfo_path = "/proc/meminfo");

}  // namespace frugal::memory
