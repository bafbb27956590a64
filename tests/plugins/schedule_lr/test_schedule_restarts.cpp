// The restart-friendly schedules of schedule_lr: warm restarts (sgdr) and
// warmup-stable-decay (wsd), at every boundary, against values worked out
// by hand here (their option errors are checked with the others in
// test_schedule_lr.cpp).
#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>
#include <vector>

#include "schedule_test_support.hpp"

using namespace frugal;
using frugal::test::lr_context;
using frugal::test::options_of;

namespace {

double lr_at(frugal_schedule* schedule, int64_t step) {
  double lr = 0;
  host::check(frugal_schedule_lr(schedule, step, &lr));
  return lr;
}

}  // namespace

TEST_CASE("sgdr linear: warm-up, then cycles of 10, 20, 40 steps restarting at the peak") {
  auto context = lr_context();
  auto options = options_of({{"lr", "1"},
                             {"min_lr", "0.1"},
                             {"warmup_steps", "5"},
                             {"cycle_steps", "10"},
                             {"cycle_mult", "2"},
                             {"shape", "linear"}});
  auto s = host::make_schedule(context.get(), "sgdr", options.get());
  CHECK(lr_at(s.get(), 0) == Approx(0.2));  // (0 + 1) / 5
  CHECK(lr_at(s.get(), 4) == Approx(1.0));  // the last warm-up step reaches the peak
  // Cycle 0: steps 5..14, p = (s - 5) / 10.
  CHECK(lr_at(s.get(), 5) == 1.0);
  CHECK(lr_at(s.get(), 10) == Approx(1.0 - 0.9 * 0.5));
  CHECK(lr_at(s.get(), 14) == Approx(1.0 - 0.9 * 0.9));
  // Cycle 1: steps 15..34 (20 steps): the restart is the peak again.
  CHECK(lr_at(s.get(), 15) == 1.0);
  CHECK(lr_at(s.get(), 34) == Approx(1.0 - 0.9 * 19.0 / 20.0));
  // Cycle 2: steps 35..74.
  CHECK(lr_at(s.get(), 35) == 1.0);
  CHECK(lr_at(s.get(), 55) == Approx(1.0 - 0.9 * 0.5));
  CHECK(lr_at(s.get(), 75) == 1.0);  // cycle 3 starts at 75
}

TEST_CASE("sgdr cosine with fixed cycles and decaying peaks never goes below min_lr") {
  auto context = lr_context();
  auto options = options_of(
      {{"lr", "0.8"}, {"min_lr", "0.1"}, {"cycle_steps", "8"}, {"restart_decay", "0.5"}, {"shape", "cosine"}});
  auto s = host::make_schedule(context.get(), "sgdr", options.get());
  const double peaks[] = {0.8, 0.4, 0.2, 0.1, 0.1};  // 0.05 is floored at min_lr
  for (int cycle = 0; cycle < 5; ++cycle) {
    for (int t = 0; t < 8; ++t) {
      const double expected = 0.1 + (peaks[cycle] - 0.1) * (1 + std::cos(std::numbers::pi * t / 8.0)) / 2;
      INFO("cycle " << cycle << " t " << t);
      CHECK(lr_at(s.get(), cycle * 8 + t) == Approx(expected).epsilon(1e-14));
    }
  }
  // Far away the walk is one division: step 8e12 is a cycle start.
  CHECK(lr_at(s.get(), 8'000'000'000'000) == 0.1);
}

TEST_CASE("sgdr with growing cycles stays exact for steps deep into training") {
  auto context = lr_context();
  auto options = options_of({{"lr", "1"}, {"cycle_steps", "1"}, {"cycle_mult", "3"}, {"shape", "linear"}});
  auto s = host::make_schedule(context.get(), "sgdr", options.get());
  // Cycle i starts at (3^i - 1) / 2 and lasts 3^i steps.
  int64_t start = 0, length = 1;
  for (int i = 0; i < 30; ++i) {
    CHECK(lr_at(s.get(), start) == 1.0);
    CHECK(lr_at(s.get(), start + length - 1) == Approx(1.0 - double(length - 1) / double(length)).margin(1e-15));
    start += length;
    length *= 3;
  }
}

TEST_CASE("wsd holds the peak, then decays over the last fifth to min_lr") {
  auto context = lr_context();
  const char* shape = GENERATE("linear", "cosine", "1-sqrt");
  auto options = options_of(
      {{"lr", "1"}, {"min_lr", "0.1"}, {"warmup_steps", "10"}, {"total_steps", "110"}, {"decay_shape", shape}});
  auto s = host::make_schedule(context.get(), "wsd", options.get());
  INFO(shape);
  CHECK(lr_at(s.get(), 0) == Approx(0.1));
  CHECK(lr_at(s.get(), 9) == 1.0);
  CHECK(lr_at(s.get(), 10) == 1.0);
  CHECK(lr_at(s.get(), 89) == 1.0);  // decay_fraction 0.2 of 100 steps: decay starts at 90
  CHECK(lr_at(s.get(), 90) == 1.0);  // progress 0
  const double p = 5.0 / 20.0;       // step 95
  const double expected = std::string(shape) == "linear"   ? 1.0 - 0.9 * p
                          : std::string(shape) == "cosine" ? 0.1 + 0.9 * (1 + std::cos(std::numbers::pi * p)) / 2
                                                           : 0.1 + 0.9 * (1 - std::sqrt(p));
  CHECK(lr_at(s.get(), 95) == Approx(expected).epsilon(1e-14));
  CHECK(lr_at(s.get(), 109) > 0.1);
  CHECK(lr_at(s.get(), 109) < 0.2);
  CHECK(lr_at(s.get(), 110) == 0.1);
  CHECK(lr_at(s.get(), 1'000'000) == 0.1);
}

TEST_CASE("wsd with explicit decay_steps") {
  auto context = lr_context();
  auto options = options_of({{"lr", "2"}, {"total_steps", "100"}, {"decay_steps", "4"}});
  auto s = host::make_schedule(context.get(), "wsd", options.get());
  const double expected[] = {2.0, 2.0, 1.5, 1.0, 0.5, 0.0};  // steps 95..100
  for (int i = 0; i < 6; ++i) CHECK(lr_at(s.get(), 95 + i) == Approx(expected[i]).margin(1e-15));
}
