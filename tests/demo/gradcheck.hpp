// Central finite differences in double against analytic gradients.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace demo_test {

// A fresh seed per run: a failure prints it (CAPTURE) for replay.
inline std::uint64_t fresh_seed() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

inline void fill_uniform(std::span<double> out, std::mt19937_64& rng, double lo = -1.0, double hi = 1.0) {
  std::uniform_real_distribution<double> dist(lo, hi);
  for (double& x : out) x = dist(rng);
}

struct CheckResult {
  double worst_ratio = 0;  // max |a - n| / (rel * max(|a|, |n|) + abs); pass when <= 1
  std::size_t worst_index = 0;
  double analytic = 0;
  double numeric = 0;
  std::size_t checked = 0;
};

// Perturbs values[i] by +-eps, evaluates objective() (which must run the
// forward pass from scratch) and compares with analytic[i].
inline CheckResult check_gradient(std::span<double> values, std::span<const double> analytic,
                                  const std::function<double()>& objective, double eps = 1e-5,
                                  double rel = 1e-6, double abs = 1e-9) {
  CheckResult r;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double saved = values[i];
    values[i] = saved + eps;
    const double up = objective();
    values[i] = saved - eps;
    const double down = objective();
    values[i] = saved;
    const double numeric = (up - down) / (2 * eps);
    const double ratio = std::abs(analytic[i] - numeric) / (rel * std::max(std::abs(analytic[i]), std::abs(numeric)) + abs);
    if (ratio > r.worst_ratio) r = CheckResult{ratio, i, analytic[i], numeric, 0};
    ++r.checked;
  }
  r.checked = values.size();
  return r;
}

inline double weighted_sum(std::span<const double> out, std::span<const double> weights) {
  double s = 0;
  for (std::size_t i = 0; i < out.size(); ++i) s += out[i] * weights[i];
  return s;
}

// One Catch2 assertion per tensor, naming the worst entry on failure.
inline void require_gradient(const CheckResult& r, const std::string& what) {
  INFO(what << ": worst entry " << r.worst_index << " of " << r.checked << ", analytic " << r.analytic
            << ", numeric " << r.numeric << ", error/tolerance " << r.worst_ratio);
  REQUIRE(r.checked > 0);
  REQUIRE(r.worst_ratio <= 1.0);
}

}  // namespace demo_test
