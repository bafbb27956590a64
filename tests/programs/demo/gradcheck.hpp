// Finite differences (five-point stencil) in double against analytic gradients.
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

#include "test_seed.hpp"

namespace demo_test {

// A fresh seed per run, printed on failure; FRUGAL_TEST_SEED replays it.
inline std::uint64_t fresh_seed() { return frugal_test::test_seed(); }

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

// Perturbs values[i] by +-eps and +-2 eps, evaluates objective() (which must
// run the forward pass from scratch) and compares with analytic[i].
//
// The five-point stencil (Richardson extrapolation of two central
// differences) has O(eps^4) truncation error. The plain central difference
// (O(eps^2)) is not enough at this tolerance: with a fresh seed per run the
// whole MoE model occasionally has third derivatives large enough to put a
// correct gradient of 1.7e-4 off by 2e-9 (seed 0xf3fcecafa8d30c37), while
// the extrapolated value agrees to 1e-11.
inline CheckResult check_gradient(std::span<double> values, std::span<const double> analytic,
                                  const std::function<double()>& objective, double eps = 1e-5, double rel = 1e-6,
                                  double abs = 1e-9) {
  CheckResult r;
  const auto at = [&](std::size_t i, double x) {
    values[i] = x;
    return objective();
  };
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double saved = values[i];
    const double d1 = at(i, saved + eps) - at(i, saved - eps);
    const double d2 = at(i, saved + 2 * eps) - at(i, saved - 2 * eps);
    values[i] = saved;
    const double numeric = (8 * d1 - d2) / (12 * eps);
    const double ratio =
        std::abs(analytic[i] - numeric) / (rel * std::max(std::abs(analytic[i]), std::abs(numeric)) + abs);
    if (ratio > r.worst_ratio) r = CheckResult{ratio, i, analytic[i], numeric, 0};
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
  INFO(what << ": worst entry " << r.worst_index << " of " << r.checked << ", analytic " << r.analytic << ", numeric "
            << r.numeric << ", error/tolerance " << r.worst_ratio);
  REQUIRE(r.checked > 0);
  REQUIRE(r.worst_ratio <= 1.0);
}

}  // namespace demo_test
