// The timing rule of the quant benchmarks: the best of `reps` runs, the one
// least disturbed by other load on a shared machine.
#pragma once

#include <algorithm>
#include <chrono>

namespace frugal::bench {

template <class Fn>
double best_seconds(int reps, Fn fn) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

}  // namespace frugal::bench
