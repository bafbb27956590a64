// Shared helpers for the quant tests: the four conversion modes, a
// deterministic bit-pattern generator and a parallel for over index ranges.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "formats/fp8.hpp"

namespace quant_test {

struct Mode {
  frugal::quant::Fp8Format format;
  frugal::quant::Saturation sat;
  const char* name;
};

inline constexpr std::array<Mode, 4> all_modes{{
    {frugal::quant::Fp8Format::e4m3fn, frugal::quant::Saturation::finite, "e4m3fn/satfinite"},
    {frugal::quant::Fp8Format::e4m3fn, frugal::quant::Saturation::none, "e4m3fn/nosat"},
    {frugal::quant::Fp8Format::e5m2, frugal::quant::Saturation::finite, "e5m2/satfinite"},
    {frugal::quant::Fp8Format::e5m2, frugal::quant::Saturation::none, "e5m2/nosat"},
}};

// splitmix64: every seed gives a well-spread stream, so each thread's slice
// of a random run is reproducible from (seed, index) alone.
constexpr std::uint64_t splitmix64(std::uint64_t x) noexcept {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Calls body(begin, end) over [0, count) on all hardware threads; returns the
// sum of the bodies' results (mismatch counts).
inline std::uint64_t parallel_count(std::uint64_t count,
                                    const std::function<std::uint64_t(std::uint64_t, std::uint64_t)>& body) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::uint64_t> results(threads, 0);
  {
    std::vector<std::jthread> workers;
    const std::uint64_t step = (count + threads - 1) / threads;
    for (unsigned t = 0; t < threads; ++t) {
      const std::uint64_t begin = std::min(count, t * step);
      const std::uint64_t end = std::min(count, begin + step);
      workers.emplace_back([&results, &body, t, begin, end] { results[t] = body(begin, end); });
    }
  }
  std::uint64_t total = 0;
  for (const auto r : results) total += r;
  return total;
}

}  // namespace quant_test
