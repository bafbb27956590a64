#include "algorithms/trend_test.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace frugal::policy {
namespace {

int sign_of(double d) noexcept { return (d > 0.0) - (d < 0.0); }

// The median of v (reordered); v not empty.
double median_of(std::vector<double>& v) noexcept {
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return lower + (upper - lower) / 2.0;
}

}  // namespace

int64_t mann_kendall_s(std::span<const double> y) noexcept {
  int64_t s = 0;
  for (std::size_t i = 0; i < y.size(); ++i)
    for (std::size_t j = i + 1; j < y.size(); ++j) s += sign_of(y[j] - y[i]);
  return s;
}

double mann_kendall_z(int64_t s, std::size_t n) noexcept {
  const auto dn = static_cast<double>(n);
  const double var = dn * (dn - 1.0) * (2.0 * dn + 5.0) / 18.0;
  if (s == 0 || var <= 0.0) return 0.0;
  const auto corrected = static_cast<double>(s > 0 ? s - 1 : s + 1);
  return corrected / std::sqrt(var);
}

LineFit theil_sen(std::span<const double> x, std::span<const double> y, std::vector<double>& scratch) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  scratch.clear();
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t j = i + 1; j < x.size(); ++j)
      if (x[j] != x[i]) scratch.push_back((y[j] - y[i]) / (x[j] - x[i]));
  if (scratch.empty()) return {kNaN, kNaN};
  LineFit fit;
  fit.slope = median_of(scratch);
  scratch.clear();
  for (std::size_t i = 0; i < x.size(); ++i) scratch.push_back(y[i] - fit.slope * x[i]);
  fit.intercept = median_of(scratch);
  return fit;
}

double descent_noise(std::span<const double> x, std::span<const double> y, const LineFit& fit,
                     std::vector<double>& scratch) {
  const double drop = x.empty() ? 0.0 : -fit.slope * (x.back() - x.front());
  if (!(drop > 0.0)) return std::numeric_limits<double>::infinity();
  scratch.clear();
  for (std::size_t i = 0; i < x.size(); ++i) scratch.push_back(std::fabs(y[i] - (fit.slope * x[i] + fit.intercept)));
  return median_of(scratch) / drop;
}

DescentCheck check_descent(std::span<const double> x, std::span<const double> y, int64_t s, double z_threshold,
                           double max_noise, std::vector<double>& scratch) {
  const double z = mann_kendall_z(s, y.size());
  if (z > -z_threshold) {
    DescentCheck c;
    c.z = z;
    return c;
  }
  return fit_descent(x, y, z, max_noise, scratch);
}

DescentCheck fit_descent(std::span<const double> x, std::span<const double> y, double z, double max_noise,
                         std::vector<double>& scratch) {
  DescentCheck c;
  c.z = z;
  const LineFit fit = theil_sen(x, y, scratch);
  c.fitted = true;
  c.slope = fit.slope;
  c.noise = descent_noise(x, y, fit, scratch);
  c.passed = fit.slope < 0.0 && c.noise <= max_noise;
  return c;
}

}  // namespace frugal::policy
