#include "attempt.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <vector>

#include "algorithms/packer.hpp"

namespace frugal::bench::packer {

namespace {

std::vector<fp::Algorithm> collect_fast() {
  std::vector<fp::Algorithm> out;
  for (const fp::Algorithm a : fp::all_algorithms()) {
    if (a != fp::Algorithm::naive_first_fit) out.push_back(a);
  }
  return out;
}

}  // namespace

std::span<const fp::Algorithm> fast_algorithms() noexcept {
  // Taken from all_algorithms() so that an algorithm added to the library
  // shows up in every table without touching the benchmark.
  static const std::vector<fp::Algorithm> fast = collect_fast();
  return fast;
}

Attempt attempt(fp::Algorithm algorithm, std::span<const int64_t> lengths, const fp::PackLimits& limits, int repeats) {
  Attempt out;
  std::vector<double> times;
  std::vector<double> cpu_times;
  for (int r = 0; r < std::max(repeats, 1); ++r) {
    try {
      // Free the previous repeat's result first, so its pages are not part of
      // this repeat's memory footprint (the allocator then reuses them, as a
      // long-running data loader would).
      out.result = fp::PackResult{};
      const std::clock_t cpu_start = std::clock();
      const auto start = std::chrono::steady_clock::now();
      fp::PackResult result = fp::run_algorithm(algorithm, lengths, limits);
      const auto stop = std::chrono::steady_clock::now();
      const std::clock_t cpu_stop = std::clock();
      times.push_back(std::chrono::duration<double>(stop - start).count());
      cpu_times.push_back(static_cast<double>(cpu_stop - cpu_start) / CLOCKS_PER_SEC);
      out.result = std::move(result);
    } catch (const fp::PackError& e) {
      const std::string what = e.what();
      out.status = what.find("not implemented") != std::string::npos ? AttemptStatus::pending : AttemptStatus::error;
      out.message = what;
      return out;
    } catch (const std::exception& e) {
      out.status = AttemptStatus::error;
      out.message = e.what();
      return out;
    }
  }
  std::sort(times.begin(), times.end());
  std::sort(cpu_times.begin(), cpu_times.end());
  out.seconds = times[times.size() / 2];
  out.cpu_seconds = cpu_times[cpu_times.size() / 2];
  return out;
}

}  // namespace frugal::bench::packer
