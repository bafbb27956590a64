// The descent test (Mann-Kendall + Theil-Sen) on constructed series, and
// the loss window that keeps Mann-Kendall's S incrementally.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "algorithms/loss_window.hpp"
#include "algorithms/trend_test.hpp"

using namespace frugal::policy;

namespace {

// Uniform noise in [-amplitude, amplitude) from mt19937's exactly specified
// output, so every platform sees the same series.
struct Noise {
  std::mt19937 gen;
  explicit Noise(uint32_t seed) : gen(seed) {}
  double operator()(double amplitude) { return amplitude * (2.0 * (static_cast<double>(gen()) / 4294967296.0) - 1.0); }
};

struct Series {
  std::vector<double> x, y;
};

// y = start + slope * x + noise, x = 0, 60, 120, ... (one sample a minute).
Series series(std::size_t n, double start, double slope, double noise_amplitude, uint32_t seed = 1) {
  Noise noise(seed);
  Series s;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = 60.0 * static_cast<double>(i);
    s.x.push_back(x);
    s.y.push_back(start + slope * x + (noise_amplitude > 0 ? noise(noise_amplitude) : 0.0));
  }
  return s;
}

DescentCheck check(const Series& s, double z_threshold = 2.33, double max_noise = 0.5) {
  std::vector<double> scratch;
  return check_descent(s.x, s.y, mann_kendall_s(s.y), z_threshold, max_noise, scratch);
}

}  // namespace

TEST_CASE("Mann-Kendall S and z: ties count 0, the variance has no tie correction, continuity corrected") {
  CHECK(mann_kendall_s(std::vector<double>{5, 4, 3, 2, 1}) == -10);
  CHECK(mann_kendall_s(std::vector<double>{1, 2, 3, 4, 5}) == 10);
  CHECK(mann_kendall_s(std::vector<double>{1, 1, 1, 1}) == 0);
  // From the first 2: -1, 0, -1; from the first 1: +1, 0; from the second 2: -1.
  CHECK(mann_kendall_s(std::vector<double>{2, 1, 2, 1}) == -2);
  // n = 20: var = 20 * 19 * 45 / 18 = 950.
  CHECK(mann_kendall_z(-190, 20) == Approx(-189.0 / std::sqrt(950.0)));
  CHECK(mann_kendall_z(190, 20) == Approx(189.0 / std::sqrt(950.0)));
  CHECK(mann_kendall_z(0, 20) == 0.0);
  CHECK(mann_kendall_z(-1, 20) == 0.0);  // one discordant pair is no evidence
}

TEST_CASE("Theil-Sen recovers an exact line and ignores a minority of outliers") {
  Series s = series(20, 3.0, -0.5 / 60.0, 0.0);
  std::vector<double> scratch;
  LineFit fit = theil_sen(s.x, s.y, scratch);
  CHECK(fit.slope == Approx(-0.5 / 60.0).epsilon(1e-12));
  CHECK(fit.intercept == Approx(3.0).epsilon(1e-12));
  s.y[7] += 50.0;  // one wild sample moves 19 of 190 slopes, not the median
  s.y[13] -= 50.0;
  fit = theil_sen(s.x, s.y, scratch);
  CHECK(fit.slope == Approx(-0.5 / 60.0).epsilon(1e-9));
  CHECK(fit.intercept == Approx(3.0).epsilon(1e-9));
  // Pairs at the same x carry no slope; with none left the fit is NaN.
  const std::vector<double> same_x{1.0, 1.0, 1.0};
  CHECK(std::isnan(theil_sen(same_x, std::vector<double>{3.0, 2.0, 1.0}, scratch).slope));
}

TEST_CASE("a clean descent passes the descent test") {
  const DescentCheck c = check(series(20, 4.0, -1e-4, 0.0));
  CHECK(c.z == Approx(-189.0 / std::sqrt(950.0)));
  CHECK(c.fitted);
  CHECK(c.slope == Approx(-1e-4));
  CHECK(c.noise == 0.0);
  CHECK(c.passed);
}

TEST_CASE("a noisy flat series fails: no significant trend, and the line is never fitted") {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    INFO("seed " << seed);
    const DescentCheck c = check(series(20, 4.0, 0.0, 0.3, seed));
    CHECK(c.z > -2.33);
    CHECK_FALSE(c.fitted);
    CHECK_FALSE(c.passed);
  }
}

TEST_CASE("a rising series fails") {
  const DescentCheck clean = check(series(20, 2.0, 1e-4, 0.0));
  CHECK(clean.z > 5.0);
  CHECK_FALSE(clean.passed);
  const DescentCheck noisy = check(series(20, 2.0, 1e-4, 0.02, 7));
  CHECK(noisy.z > 2.33);
  CHECK_FALSE(noisy.passed);
}

TEST_CASE("a steady descent with rare spikes still passes: ranks and medians are robust") {
  Series s = series(20, 4.0, -1e-4, 0.005, 3);  // 0.114 drop over the window, small noise
  s.y[5] += 2.0;                                // a bad batch
  s.y[14] += 3.0;                               // and another
  const DescentCheck c = check(s);
  CHECK(c.z <= -2.33);
  CHECK(c.fitted);
  CHECK(c.slope == Approx(-1e-4).epsilon(0.1));
  CHECK(c.noise < 0.1);
  CHECK(c.passed);
  // A least-squares slope would have been dragged far off by the spikes:
  // the same series' mean of pairwise slopes is not close to the truth.
  double sum = 0.0;
  int pairs = 0;
  for (std::size_t i = 0; i < s.x.size(); ++i)
    for (std::size_t j = i + 1; j < s.x.size(); ++j, ++pairs) sum += (s.y[j] - s.y[i]) / (s.x[j] - s.x[i]);
  CHECK(std::fabs(sum / pairs - (-1e-4)) > 0.5e-4);
}

TEST_CASE("a significant but noisy drift fails on the noise ratio") {
  // 200 samples drifting down by 1 with noise of +-2: Mann-Kendall is
  // significant (many samples), but the typical residual is over half the drop.
  const Series s = series(200, 5.0, -1.0 / (60.0 * 199.0), 2.0, 11);
  const DescentCheck c = check(s);
  CHECK(c.z <= -2.33);
  CHECK(c.fitted);
  CHECK(c.noise > 0.5);
  CHECK_FALSE(c.passed);
  // The same series passes with a looser noise limit.
  CHECK(check(s, 2.33, 5.0).passed);
}

TEST_CASE("the loss window keeps S equal to a full recount as samples enter and leave, ties included") {
  LossWindow w(7);
  Noise noise(5);
  std::vector<double> all;
  for (int i = 0; i < 60; ++i) {
    const double loss = std::round(4.0 * noise(1.0)) / 4.0;  // few distinct values: many ties
    w.push(i * 10.0, loss);
    all.push_back(loss);
    const std::size_t n = std::min<std::size_t>(all.size(), 7);
    const std::vector<double> tail(all.end() - static_cast<std::ptrdiff_t>(n), all.end());
    INFO("after sample " << i);
    REQUIRE(w.size() == n);
    REQUIRE(w.mann_kendall_s() == mann_kendall_s(tail));
    std::vector<double> times, losses;
    w.copy_to(times, losses);
    REQUIRE(losses == tail);
    REQUIRE(times.back() == i * 10.0);
  }
  CHECK(w.full());
}
