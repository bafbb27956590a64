// Running one packing algorithm for the benchmark: timed, and tolerant of
// algorithms that exist in the enum but are not implemented yet (refined and
// best are being written while this benchmark already runs), which are
// reported as "n/a" instead of failing the run.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "algorithms/types.hpp"

namespace frugal::bench::packer {

namespace fp = frugal::packer;

enum class AttemptStatus {
  ok,       // result is valid to look at
  pending,  // the algorithm said "not implemented yet"
  error,    // it threw anything else: a real failure
};

struct Attempt {
  AttemptStatus status = AttemptStatus::ok;
  fp::PackResult result;  // of the last repeat
  double seconds = 0.0;   // wall time (steady_clock), median over the repeats, run_algorithm only
  // Process CPU time of the same runs (median): on a shared machine the wall
  // time also counts time slices given to other jobs, this does not.
  double cpu_seconds = 0.0;
  std::string message;  // for pending / error
};

// Runs the algorithm `repeats` times (at least once) and keeps the median time.
// Only run_algorithm is inside the clock: generating lengths and computing
// stats are not part of "packing with assignments returned".
[[nodiscard]] Attempt attempt(fp::Algorithm algorithm, std::span<const int64_t> lengths, const fp::PackLimits& limits,
                              int repeats = 1);

// The fast algorithms the benchmark compares, in enum order (everything but
// naive_first_fit, which is only run where it finishes).
[[nodiscard]] std::span<const fp::Algorithm> fast_algorithms() noexcept;

// The packing seed used everywhere, so reruns reproduce the tables.
inline constexpr uint64_t kPackSeed = 20211;

}  // namespace frugal::bench::packer
