// A robust test for "the loss descends steadily": Mann-Kendall's rank
// trend test says whether it descends at all (significance without
// assuming a shape or a noise distribution), then the Theil-Sen line says
// whether the descent is steady rather than noise around a drift: the
// median absolute residual around the line, relative to the line's drop
// over the window, must be small. Both are medians and ranks, so a few
// loss spikes (a bad batch, a restart) move neither.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace frugal::policy {

// Mann-Kendall's S = sum over i < j of sign(y_j - y_i); ties count 0.
[[nodiscard]] int64_t mann_kendall_s(std::span<const double> y) noexcept;

// The normal score of S for n >= 2 samples: var = n(n-1)(2n+5)/18 (no tie
// correction), z = (S - 1)/sqrt(var) for S > 0, (S + 1)/sqrt(var) for
// S < 0, 0 for S = 0 (continuity correction).
[[nodiscard]] double mann_kendall_z(int64_t s, std::size_t n) noexcept;

struct LineFit {
  double slope = 0.0;
  double intercept = 0.0;
};

// Theil-Sen: the slope is the median of the pairwise slopes
// (y_j - y_i) / (x_j - x_i) over pairs with x_i != x_j, the intercept the
// median of y_i - slope x_i. A median of an even count is the mean of the
// two middle values. NaN slope and intercept when no pair has distinct x.
// `scratch` avoids allocating on every call.
[[nodiscard]] LineFit theil_sen(std::span<const double> x, std::span<const double> y, std::vector<double>& scratch);

// The median |y_i - (slope x_i + intercept)| divided by the line's drop
// over the samples, -slope (x_last - x_first); +infinity when the line
// does not descend.
[[nodiscard]] double descent_noise(std::span<const double> x, std::span<const double> y, const LineFit& fit,
                                   std::vector<double>& scratch);

struct DescentCheck {
  double z = 0.0;       // Mann-Kendall score
  double slope = 0.0;   // Theil-Sen slope (loss per unit of x); 0 when not fitted
  double noise = 0.0;   // descent_noise; 0 when not fitted
  bool fitted = false;  // the line was fitted (the trend was significant)
  bool passed = false;  // z <= -z_threshold, slope < 0 and noise <= max_noise
};

// The line half of the test, for samples (x rising, e.g. job time, y the
// loss) whose Mann-Kendall score z already passed: fits Theil-Sen and
// checks the slope and the noise ratio.
[[nodiscard]] DescentCheck fit_descent(std::span<const double> x, std::span<const double> y, double z, double max_noise,
                                       std::vector<double>& scratch);

// The whole test over samples whose Mann-Kendall S is already known
// (LossWindow keeps it). The O(n^2 log n) line is fitted only when the
// trend is significant (z <= -z_threshold).
[[nodiscard]] DescentCheck check_descent(std::span<const double> x, std::span<const double> y, int64_t s,
                                         double z_threshold, double max_noise, std::vector<double>& scratch);

}  // namespace frugal::policy
