// Synthetic sequence-length distributions for the packer benchmark. Each is
// defined relative to max_len, so "mean length / max_len" means the same thing
// at every max_len and the quality targets (which depend on that ratio) can be
// judged per distribution.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace frugal::bench::packer {

enum class Distribution {
  uniform,    // every length in [1, max_len] equally likely
  lognormal,  // median max_len / 8, sigma 1: a long tail reaching max_len
  bimodal,    // 80 % short in [max_len / 32, max_len / 8], 20 % long in [max_len / 2, max_len]
  chat,       // 85 % exponential with mean max_len / 48, 15 % lognormal (median max_len / 8)
};

[[nodiscard]] std::span<const Distribution> all_distributions() noexcept;
[[nodiscard]] std::string_view distribution_name(Distribution d) noexcept;
// One line for the report: how the distribution is defined.
[[nodiscard]] std::string_view distribution_definition(Distribution d) noexcept;

struct Sample {
  std::vector<int64_t> lengths;  // every one in [1, max_len]
  int64_t clipped = 0;           // how many draws fell outside [1, max_len] and were clipped
  [[nodiscard]] double mean() const noexcept;
};

// n lengths for max_len, from a fixed seed derived from (d, max_len, n): the
// same arguments give the same lengths on every run and machine.
[[nodiscard]] Sample generate(Distribution d, int64_t n, int64_t max_len);

}  // namespace frugal::bench::packer
