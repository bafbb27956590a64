// The packer's entry point: validate, apply the overlong policy, run one
// algorithm, compute the stats.
#pragma once

#include <cstdint>
#include <span>

#include "algorithms/overlong.hpp"
#include "algorithms/stats.hpp"
#include "algorithms/types.hpp"

namespace frugal::packer {

struct PackOptions {
  Algorithm algorithm = Algorithm::first_fit_decreasing;
  int64_t max_len = 0;
  int64_t max_per_pack = 0;  // 0 = unlimited
  OverlongPolicy overlong = OverlongPolicy::error;
  uint64_t seed = 0;
};

struct PackOutput {
  NormalizedInput input;  // the units packed; result items index input.lengths
  PackResult result;
  PackStats stats;
};

// Runs one algorithm on lengths already in [1, max_len].
[[nodiscard]] PackResult run_algorithm(Algorithm algorithm, std::span<const int64_t> lengths, const PackLimits& limits);

// Every algorithm is deterministic: the same input gives the same output.
[[nodiscard]] PackOutput pack_sequences(std::span<const int64_t> lengths, const PackOptions& options);

}  // namespace frugal::packer
