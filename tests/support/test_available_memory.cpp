// support/memory: the available memory the core's packer and the CLI weigh
// their inputs against. The MemAvailable line is read in bytes, a text
// without one is refused, and a missing file falls back to the free pages.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "available_memory.hpp"

using frugal::memory::available_memory;
using frugal::memory::mem_available_bytes;

namespace {

// The start of a real /proc/meminfo, MemAvailable third.
constexpr const char* kMeminfo =
    "MemTotal:       131891188 kB\n"
    "MemFree:         2718172 kB\n"
    "MemAvailable:   97365428 kB\n"
    "Buffers:          524288 kB\n";

std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / (name + "." + std::to_string(::getpid()));
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("mem_available_bytes: the MemAvailable line in bytes, whatever its place") {
  CHECK(mem_available_bytes(kMeminfo) == uint64_t{97365428} * 1024);
  CHECK(mem_available_bytes("MemAvailable: 1 kB") == 1024);  // last line, no newline
  CHECK(mem_available_bytes("MemAvailable:\t0 kB\r\n") == 0);
}

TEST_CASE("mem_available_bytes: no value without a well-formed MemAvailable line") {
  CHECK_FALSE(mem_available_bytes(""));
  CHECK_FALSE(mem_available_bytes("MemTotal: 100 kB\nMemFree: 50 kB\n"));
  CHECK_FALSE(mem_available_bytes(" MemAvailable: 100 kB\n"));                  // not at a line's start
  CHECK_FALSE(mem_available_bytes("MemAvailable: lots kB\n"));                  // not a number
  CHECK_FALSE(mem_available_bytes("MemAvailable: 100 MB\n"));                   // not the kernel's unit
  CHECK_FALSE(mem_available_bytes("MemAvailable: 18446744073709551615 kB\n"));  // bytes overflow
}

TEST_CASE("available_memory: MemAvailable from the file, and the file named as its source") {
  const auto path = write_temp("frugal_meminfo", kMeminfo);
  const auto memory = available_memory(path.string());
  std::filesystem::remove(path);
  CHECK(memory.bytes == uint64_t{97365428} * 1024);
  CHECK(memory.source == "MemAvailable in " + path.string());
}

TEST_CASE("available_memory: no file or no MemAvailable line falls back to the free pages") {
  const long page_size = ::sysconf(_SC_PAGESIZE);
  REQUIRE(page_size > 0);
  const auto path = write_temp("frugal_meminfo_old", "MemTotal: 100 kB\nMemFree: 50 kB\n");
  const auto without_line = available_memory(path.string());
  std::filesystem::remove(path);
  const auto without_file = available_memory(path.string());
  for (const auto& memory : {without_line, without_file}) {
    CHECK(memory.source == "free pages (_SC_AVPHYS_PAGES)");
    // The free pages move between two reads, so no exact value: whole pages.
    CHECK(memory.bytes > 0);
    CHECK(memory.bytes % static_cast<uint64_t>(page_size) == 0);
  }
}

TEST_CASE("available_memory: this machine's /proc/meminfo has MemAvailable") {
  const auto memory = available_memory();
  CHECK(memory.source == "MemAvailable in /proc/meminfo");
  CHECK(memory.bytes > 0);
}
