// The trace as the engine queries it: availability, the next change, and
// price integrals, inside the period and beyond it (the trace wraps).
#include <catch2/catch.hpp>

#include <cmath>

#include "trace_readers.hpp"

using frugal::simulate::parse_trace;
using frugal::simulate::Trace;
using frugal::simulate::TraceFormat;

namespace {

// Up 0-100, down 100-150, up 150-250 (at $2, $4, $6); the period is 250 + 100.
Trace small_trace() {
  return parse_trace("time_s,available,spot_price\n0,1,2\n100,0,4\n150,1,6\n250,1,1\n", "t", TraceFormat::kAuto, {});
}

}  // namespace

TEST_CASE("trace queries: availability and the next change, wrapping at the period") {
  const Trace t = small_trace();
  CHECK(t.period_s() == 350.0);
  CHECK(t.available_at(0.0));
  CHECK(t.available_at(99.9));
  CHECK_FALSE(t.available_at(100.0));
  CHECK(t.available_at(150.0));
  CHECK(t.next_unavailable(0.0) == 100.0);
  CHECK(t.next_unavailable(100.0) == 100.0);  // already unavailable: now
  CHECK(t.next_unavailable(120.0) == 120.0);
  CHECK(t.next_unavailable(160.0) == 350.0 + 100.0);  // the next period's outage
  CHECK(t.next_available(100.0) == 150.0);
  CHECK(t.next_available(40.0) == 40.0);
  CHECK(t.next_available(350.0 * 3 + 120.0) == 350.0 * 3 + 150.0);
  CHECK_FALSE(t.available_at(350.0 * 7 + 110.0));
}

TEST_CASE("trace queries: price integrals and means over and across periods") {
  const Trace t = small_trace();
  const double period_integral = 2 * 100 + 4 * 50 + 6 * 100 + 1 * 100;
  CHECK(t.price_integral(0.0) == 0.0);
  CHECK(t.price_integral(100.0) == 200.0);
  CHECK(t.price_integral(125.0) == 300.0);
  CHECK(t.price_integral(350.0) == Approx(period_integral));
  CHECK(t.price_integral(350.0 * 2 + 125.0) == Approx(2 * period_integral + 300.0));
  CHECK(t.mean_price(50.0, 150.0) == Approx((2 * 50 + 4 * 50) / 100.0));
  CHECK(t.mean_price(120.0, 120.0) == 4.0);
  CHECK(t.period_mean_price() == Approx(period_integral / 350.0));
  CHECK(t.available_share() == Approx(300.0 / 350.0));
}

TEST_CASE("trace queries: a trace without outages is never unavailable") {
  const Trace t = parse_trace(R"({"metadata": {"gap_seconds": 10}, "data": [0, 0, 0]})", "t", TraceFormat::kAuto, {});
  CHECK(std::isinf(t.next_unavailable(5.0)));
  CHECK(t.next_available(1e9) == 1e9);
}
