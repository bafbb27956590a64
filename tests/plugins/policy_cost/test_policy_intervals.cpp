// Young/Daly checkpoint intervals against the published cases, and the
// model that learns their inputs (checkpoint cost, MTBF) from telemetry.
#include <catch2/catch.hpp>

#include <cmath>

#include "algorithms/young_daly.hpp"

using namespace frugal::policy;

namespace {

constexpr double kMinute = 60.0;
constexpr double kHour = 3600.0;

}  // namespace

TEST_CASE("Daly's interval hits the published cases for a 5-minute checkpoint") {
  const double delta = 5 * kMinute;
  CHECK(daly_interval(delta, 24 * kHour) / kMinute == Approx(116.69).margin(0.01));
  CHECK(std::round(daly_interval(delta, 24 * kHour) / kMinute) == 117.0);
  CHECK(daly_interval(delta, 6 * kHour) / kMinute == Approx(56.71).margin(0.01));
  CHECK(std::round(daly_interval(delta, 6 * kHour) / kMinute) == 57.0);
  CHECK(daly_interval(delta, 15 * kMinute) / kMinute == Approx(9.14).margin(0.005));
}

TEST_CASE("Young's first-order interval is sqrt(2 delta M); Daly's is M once delta reaches 2M") {
  CHECK(young_interval(5 * kMinute, 24 * kHour) == 7200.0);  // exactly 120 min
  CHECK(young_interval(5 * kMinute, 6 * kHour) == 3600.0);
  // Daly corrects Young downward by about delta for small delta / M.
  CHECK(daly_interval(60.0, 1e7) == Approx(young_interval(60.0, 1e7) - 60.0).epsilon(1e-3));
  CHECK(daly_interval(200.0, 100.0) == 100.0);
  CHECK(daly_interval(200.0, 99.0) == 99.0);
  // Just below the switch the formula still applies and stays positive.
  CHECK(daly_interval(199.0, 100.0) > 0.0);
}

TEST_CASE("the cost model: an EMA of measured stalls seeded by the prior, M from survived time and restarts") {
  CheckpointCostModel m(60.0, 24 * kHour);
  CHECK(m.cost_s() == 60.0);
  CHECK(m.mtbf_s() == 24 * kHour);
  m.observe_stall(300.0);
  CHECK(m.cost_s() == Approx(60.0 + 0.3 * 240.0));
  for (int i = 0; i < 60; ++i) m.observe_stall(300.0);
  CHECK(m.cost_s() == Approx(300.0).epsilon(1e-6));

  // The prior counts as one pseudo-failure: a day survived with one restart
  // measures M = (1 day prior + 1 day) / 2 = 1 day.
  m.observe_clock(24 * kHour);
  CHECK(m.mtbf_s() == 48 * kHour);
  m.observe_restart();
  CHECK(m.restarts() == 1);
  CHECK(m.mtbf_s() == 24 * kHour);
  CHECK(m.interval_s() / kMinute == Approx(116.69).margin(0.05));
  // Seven more restarts by 30 h: M = (24 h prior + 30 h) / (1 + 8) = 6 h.
  m.observe_clock(30 * kHour);
  for (int i = 0; i < 7; ++i) m.observe_restart();
  CHECK(m.mtbf_s() == 6 * kHour);
  CHECK(m.interval_s() / kMinute == Approx(56.71).margin(0.05));
}
