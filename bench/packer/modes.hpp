// The benchmark's three measurements. Each prints its tables and records
// failed targets or broken invariants in the verdict.
#pragma once

#include <cstdint>
#include <vector>

#include "report.hpp"

namespace frugal::bench::packer {

struct QualityOptions {
  int64_t n = 1'000'000;
  // The 0.1 % gap target is only meaningful when 0.1 % of the lower bound is
  // many packs; at smoke-test sizes it is printed but not judged.
  bool judge_gap_target = true;
};

struct SpeedOptions {
  int64_t n = int64_t{1} << 24;  // 16 Mi sequences
  int64_t max_len = 2048;
  int repeats = 3;
  bool judge_time_target = true;  // the 2 s target; off at smoke-test sizes
};

struct VersusOptions {
  std::vector<int64_t> sizes{20'000, 100'000, 400'000};
  int64_t max_len = 2048;
  int repeats = 9;        // fast algorithms: millisecond runs, noisy on a shared machine
  int naive_repeats = 3;  // naive_first_fit up to 100k sequences, once above (it takes seconds)
};

// Efficiency and gaps to both lower bounds, per distribution x max_len x
// per-pack limit; targets: best >= bfd everywhere, best within 0.1 % of
// lower_bound_tight where mean length <= max_len / 4.
void run_quality(const QualityOptions& options, Format format, Verdict& verdict);

// Wall time of each fast algorithm at n sequences, per distribution; target
// < 2 s each.
void run_speed(const SpeedOptions& options, Format format, Verdict& verdict);

// naive_first_fit against each fast algorithm where naive finishes.
void run_versus_naive(const VersusOptions& options, Format format, Verdict& verdict);

}  // namespace frugal::bench::packer
