// Readers for `frugal pack` input files: a lengths file (one length per
// line) or a histogram file ("length count" per line). Blank lines and
// lines starting with '#' are skipped; anything else that is not the
// expected integers is an error naming the file, line and text.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace frugal::cli {

// Bad content in an input file (exit code 1: the command ran, the data is wrong).
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Histogram {
  std::vector<int64_t> lengths;
  std::vector<int64_t> counts;
};

std::vector<int64_t> read_lengths_file(const std::string& path);
Histogram read_histogram_file(const std::string& path);

}  // namespace frugal::cli
