// Readers for `frugal pack` input files: a lengths file (one length per
// line) or a histogram file ("length count" per line). Blank lines and
// lines starting with '#' are skipped; anything else that is not the
// expected integers is an error naming the file, line and text.
//
// Input is read line by line, never whole, and every line is checked
// against InputLimits before anything grows: a few bytes ("1 1099511627776",
// or one long length split into pieces of 1) must not turn into terabytes.
#pragma once

#include <cstdint>
#include <istream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace frugal::cli {

// Bad content in an input file (exit code 1: the command ran, the data is wrong).
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Lines longer than this are refused (a line holds one or two integers).
inline constexpr std::size_t kMaxLineChars = 4096;

enum class Overlong { error, truncate, split };

// What the input may expand to. A sequence is ceil(length / max_len) units
// under split, else 1; the units of all lines together must stay within
// max_units, and the lengths' sum within int64 (the plan's token counts).
struct InputLimits {
  int64_t max_len = std::numeric_limits<int32_t>::max();
  Overlong overlong = Overlong::split;
  uint64_t max_units = uint64_t{1} << 40;
  std::string why = "at most 2^40 units";  // how max_units was derived, for errors
};

// Heap bytes per unit: libfrugal's peak while packing (128, see
// frugal_packer_pack in packer.h) plus this tool's copy of the lengths.
inline constexpr uint64_t kBytesPerUnit = 128 + 8;

// Limits for this machine: max_units = min(2^40, available memory /
// kBytesPerUnit), available memory as the core's packer reads it
// (support/memory: MemAvailable in /proc/meminfo, else the free pages; 2^40
// alone when neither is known).
InputLimits memory_limits(int64_t max_len, Overlong overlong);

struct Histogram {
  std::vector<int64_t> lengths;  // one bin per line with a nonzero count, in file order
  std::vector<int64_t> counts;   // > 0
  uint64_t sequences = 0;        // the counts' sum
};

// `name` is the file name used in messages ("F:3: ...").
std::vector<int64_t> read_lengths(std::istream& in, const std::string& name, const InputLimits& limits);
Histogram read_histogram(std::istream& in, const std::string& name, const InputLimits& limits);

std::vector<int64_t> read_lengths_file(const std::string& path, const InputLimits& limits);
Histogram read_histogram_file(const std::string& path, const InputLimits& limits);

}  // namespace frugal::cli
