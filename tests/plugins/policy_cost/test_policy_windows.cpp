// Windowed loss improvement (the autoscaler's measure) and early stopping
// by patience.
#include <catch2/catch.hpp>

#include "algorithms/early_stopping.hpp"
#include "algorithms/window_improvement.hpp"

using namespace frugal::policy;

TEST_CASE("window means compare the last two complete windows when a sample opens the next") {
  WindowImprovement w(100.0);
  w.restart(1000.0);
  CHECK(w.window_end() == 1100.0);
  // Window [1000, 1100): mean 10; [1100, 1200): mean 9.
  for (double t = 1000; t < 1100; t += 10) CHECK_FALSE(w.add(t, t < 1050 ? 11.0 : 9.0));
  for (double t = 1100; t < 1200; t += 10) CHECK_FALSE(w.add(t, 9.0));
  CHECK(w.window_end() == 1200.0);
  // A record at exactly the window's end opens the next one and compares.
  REQUIRE(w.add(1200.0, 8.0));
  CHECK(w.previous_mean() == 10.0);
  CHECK(w.last_mean() == 9.0);
  CHECK(w.improvement() == Approx(0.1));
  CHECK(w.window_index() == 2);
  // Samples inside the open window do not compare again.
  CHECK_FALSE(w.add(1250.0, 8.0));
  REQUIRE(w.add(1300.0, 8.0));
  CHECK(w.improvement() == Approx(1.0 / 9.0));
}

TEST_CASE("a worsening loss gives a negative improvement; a zero previous mean gives 0") {
  WindowImprovement w(10.0);
  w.add(0.0, 1.0);
  w.add(10.0, 2.0);
  REQUIRE(w.add(20.0, 2.0));
  CHECK(w.improvement() == -1.0);
  WindowImprovement z(10.0);
  z.add(0.0, 0.0);
  z.add(10.0, 1.0);
  REQUIRE(z.add(20.0, 1.0));
  CHECK(z.improvement() == 0.0);
}

TEST_CASE("an empty window (records further apart than the window) postpones the comparison") {
  WindowImprovement w(100.0);
  w.restart(0.0);
  w.add(0.0, 5.0);
  w.add(100.0, 4.0);
  // Skips window [200, 300): the windows before the sample's are 1 (filled) and 2 (empty).
  CHECK_FALSE(w.add(350.0, 3.0));
  CHECK(w.window_index() == 3);
  CHECK(w.window_end() == 400.0);
  // Window 3 filled, window 2 empty: still no comparison.
  CHECK_FALSE(w.add(400.0, 3.0));
  // Windows 3 and 4 are filled: compare them.
  CHECK(w.add(500.0, 2.0));
  CHECK(w.previous_mean() == 3.0);
  CHECK(w.last_mean() == 3.0);
  // A jump over many windows lands in the right one.
  CHECK_FALSE(w.add(123456.0, 1.0));
  CHECK(w.window_index() == 1234);
  CHECK(w.window_end() == 123500.0);
}

TEST_CASE("restart drops every sample: the first comparison waits two full windows again") {
  WindowImprovement w(60.0);
  w.restart(0.0);
  for (double t = 0; t < 120; t += 1) w.add(t, 5.0);
  w.restart(120.0);
  CHECK(w.window_index() == 0);
  CHECK(w.window_end() == 180.0);
  for (double t = 120; t < 240; t += 1) CHECK_FALSE(w.add(t, t < 180 ? 4.0 : 2.0));
  REQUIRE(w.add(240.0, 2.0));
  CHECK(w.previous_mean() == 4.0);  // nothing of the 5.0 samples before the restart
  CHECK(w.improvement() == 0.5);
}

TEST_CASE("early stopping counts evaluations without improvement up to the patience") {
  EarlyStopping e(3, 0.0, DeltaMode::absolute);
  CHECK(e.observe(2.0, 100));        // the first value is the best
  CHECK_FALSE(e.observe(2.0, 200));  // equal is not better
  CHECK_FALSE(e.observe(2.5, 300));
  CHECK(e.stale() == 2);
  CHECK_FALSE(e.exhausted());
  CHECK(e.observe(1.9, 400));  // improvement resets the count
  CHECK(e.stale() == 0);
  CHECK(e.best() == 1.9);
  CHECK(e.best_step() == 400);
  e.observe(1.95, 500);
  e.observe(1.91, 600);
  CHECK_FALSE(e.exhausted());
  e.observe(1.9, 700);
  CHECK(e.exhausted());
  CHECK(e.best_step() == 400);
}

TEST_CASE("min_delta: absolute needs best - value > delta; relative needs > delta x |best|") {
  EarlyStopping absolute(2, 0.25, DeltaMode::absolute);
  absolute.observe(2.0, 0);
  CHECK_FALSE(absolute.observe(1.75, 1));  // exactly 0.25 better is not more than 0.25
  CHECK(absolute.observe(1.5, 2));
  CHECK(absolute.best() == 1.5);

  EarlyStopping relative(2, 0.1, DeltaMode::relative);
  relative.observe(10.0, 0);
  CHECK_FALSE(relative.observe(9.5, 1));  // 5% better; needs > 10%
  CHECK(relative.observe(8.9, 2));        // 11% better
  CHECK_FALSE(relative.observe(8.1, 3));  // 8.99% of 8.9
  CHECK(relative.stale() == 1);
  CHECK(relative.observe(8.0, 4));  // 10.1%

  // Relative with a negative best uses |best|.
  EarlyStopping negative(1, 0.5, DeltaMode::relative);
  negative.observe(-2.0, 0);
  CHECK_FALSE(negative.observe(-2.9, 1));  // 0.9 better, needs > 1.0
  CHECK(negative.exhausted());
  EarlyStopping negative2(1, 0.5, DeltaMode::relative);
  negative2.observe(-2.0, 0);
  CHECK(negative2.observe(-3.1, 1));
}

TEST_CASE("extreme but legal times: no comparison, bounded work, the windows restart at the sample") {
  // Window ends so far from 0 that origin + k x window_s rounds to the
  // origin: once looped for ever looking for the sample's window.
  WindowImprovement far(3600.0);
  far.restart(1e300);
  for (int i = 0; i < 5; ++i) CHECK_FALSE(far.add(1e300, 2.0));
  CHECK(far.origin() == 1e300);
  CHECK(far.window_index() == 0);
  // More windows since the origin than an index can count exactly: the
  // quotient (1e19) was cast to int64, out of its range.
  WindowImprovement tiny(1e-9);
  tiny.restart(0.0);
  CHECK_FALSE(tiny.add(0.5e-9, 2.0));
  CHECK_FALSE(tiny.add(1e10, 2.0));
  CHECK(tiny.origin() == 1e10);
  CHECK(tiny.window_index() == 0);
  // Ordinary windows after a restart still compare.
  WindowImprovement w(100.0);
  w.restart(0.0);
  CHECK_FALSE(w.add(1e20, 3.0));  // 1e18 windows: past kMaxIndex
  CHECK(w.origin() == 1e20);
  WindowImprovement after(100.0);
  after.restart(5e15);
  for (double t = 0; t < 300; t += 10) (void)after.add(5e15 + t, t < 100 ? 4.0 : 2.0);
  CHECK(after.window_index() == 2);
  CHECK(after.improvement() == Approx(0.5));
}
