// The schedule_lr plugin, loaded from disk, against formulas written out
// here independently, plus its option validation.
#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>
#include <thread>
#include <vector>

#include "schedule_test_support.hpp"

using namespace frugal;
using frugal::test::lr_context;
using frugal::test::options_of;
using frugal::test::outcome;

namespace {

double cosine_reference(int64_t s, double peak, double floor_lr, int64_t warmup, int64_t total) {
  if (s < warmup) return peak * double(s + 1) / double(warmup);
  if (s >= total) return floor_lr;
  const double progress = double(s - warmup) / double(total - warmup);
  return floor_lr + (peak - floor_lr) * (1 + std::cos(std::numbers::pi * progress)) / 2;
}

}  // namespace

TEST_CASE("constant returns lr at every step, default 1e-3") {
  auto context = lr_context();
  CHECK(test::lr_of(context.get(), "constant", 0) == 1e-3);
  auto options = options_of({{"lr", "0.25"}});
  for (int64_t step : {0, 1, 1000, 1000000000})
    CHECK(test::lr_of(context.get(), "constant", step, options.get()) == 0.25);
}

TEST_CASE("linear_warmup ramps (s+1)/W then holds") {
  auto context = lr_context();
  auto options = options_of({{"lr", "2"}, {"warmup_steps", "4"}});
  auto schedule = host::make_schedule(context.get(), "linear_warmup", options.get());
  const double expected[] = {0.5, 1.0, 1.5, 2.0, 2.0, 2.0};
  for (int64_t s = 0; s < 6; ++s) {
    double lr = 0;
    host::check(frugal_schedule_lr(schedule.get(), s, &lr));
    CHECK(lr == Approx(expected[s]).epsilon(1e-15));
  }
}

TEST_CASE("cosine matches the reference formula at every step, including the edges") {
  auto context = lr_context();
  const int64_t warmup = GENERATE(0, 1, 7, 100);
  const int64_t total = warmup + GENERATE(1, 2, 50, 900);
  const double peak = 3e-4, floor_lr = GENERATE(0.0, 3e-5);
  auto options = host::make_options();
  host::check(frugal_options_set_double(options.get(), "lr", peak));
  host::check(frugal_options_set_double(options.get(), "min_lr", floor_lr));
  host::check(frugal_options_set_int(options.get(), "warmup_steps", warmup));
  host::check(frugal_options_set_int(options.get(), "total_steps", total));
  auto schedule = host::make_schedule(context.get(), "cosine", options.get());
  for (int64_t s = 0; s <= total + 5; ++s) {
    double lr = 0;
    host::check(frugal_schedule_lr(schedule.get(), s, &lr));
    INFO("warmup " << warmup << " total " << total << " step " << s);
    REQUIRE(lr == Approx(cosine_reference(s, peak, floor_lr, warmup, total)).epsilon(1e-12).margin(1e-18));
  }
  // Landmarks: end of warm-up is the peak, the schedule ends at the floor.
  double lr = 0;
  host::check(frugal_schedule_lr(schedule.get(), warmup, &lr));
  CHECK(lr == Approx(peak));
  host::check(frugal_schedule_lr(schedule.get(), total, &lr));
  CHECK(lr == floor_lr);
}

TEST_CASE("bad schedule options are refused with errors naming the option") {
  auto context = lr_context();
  struct Case {
    const char* schedule;
    std::vector<std::pair<const char*, const char*>> options;
    const char* mention;
    // Declared ranges are checked by the core before create (OUT_OF_RANGE);
    // what involves two options, or an open bound, the plugin checks.
    int32_t code = FRUGAL_ERR_INVALID_ARGUMENT;
  };
  constexpr int32_t kRange = FRUGAL_ERR_OUT_OF_RANGE;
  const std::vector<Case> cases = {
      {"cosine", {{"lr", "0.1"}}, "option 'total_steps' is required"},
      {"cosine", {{"total_steps", "10"}, {"warmup_steps", "10"}}, "must be greater than 'warmup_steps'"},
      {"cosine", {{"total_steps", "10"}, {"min_lr", "1"}}, "'min_lr' must be in [0, lr]"},
      {"cosine", {{"total_steps", "10"}, {"warmup_step", "2"}}, "unknown option 'warmup_step'"},
      {"constant", {{"lr", "0"}}, "'lr' must be a finite number > 0"},
      {"constant", {{"lr", "nan"}}, "'lr' must be a finite number > 0"},
      {"constant", {{"lr", "fast"}}, "option 'lr' = 'fast' has type string; expected double"},
      {"linear_warmup", {{"warmup_steps", "-3"}}, "option 'warmup_steps' = -3 is out of range: must be >= 0", kRange},
      {"linear_warmup", {{"warmup_steps", "2.5"}}, "option 'warmup_steps' = 2.5 has type double; expected int"},
      {"sgdr", {{"lr", "0.1"}}, "option 'cycle_steps' is required"},
      {"sgdr", {{"cycle_steps", "0"}}, "option 'cycle_steps' = 0 is out of range: must be >= 1", kRange},
      {"sgdr", {{"cycle_steps", "10"}, {"cycle_mult", "0"}}, "must be [1, 1024]", kRange},
      {"sgdr",
       {{"cycle_steps", "10"}, {"restart_decay", "1.5"}},
       "option 'restart_decay' = 1.5 is out of range",
       kRange},
      {"sgdr", {{"cycle_steps", "10"}, {"shape", "step"}}, "option 'shape' = 'step' is not one of 'cosine', 'linear'"},
      {"wsd", {{"lr", "0.1"}}, "option 'total_steps' is required"},
      {"wsd",
       {{"total_steps", "10"}, {"decay_steps", "4"}, {"decay_fraction", "0.5"}},
       "'decay_fraction' does not apply"},
      {"wsd",
       {{"total_steps", "10"}, {"warmup_steps", "4"}, {"decay_steps", "7"}},
       "'decay_steps' must be in [1, 6]; got 7",
       kRange},
      {"wsd", {{"total_steps", "10"}, {"decay_fraction", "0"}}, "'decay_fraction' must be in (0, 1]"},
      {"wsd", {{"total_steps", "10"}, {"decay_shape", "exp"}}, "is not one of 'linear', 'cosine', '1-sqrt'"},
  };
  for (const auto& c : cases) {
    auto options = host::make_options();
    for (const auto& [name, text] : c.options) host::check(frugal_options_set_parsed(options.get(), name, text));
    frugal_schedule* schedule = nullptr;
    const auto result = outcome(frugal_schedule_create(context.get(), c.schedule, options.get(), &schedule));
    INFO(c.schedule << ": " << result.message);
    CHECK(result.code == c.code);
    CHECK(result.message.find(c.mention) != std::string::npos);
    const std::string prefix = std::string("schedule '") + c.schedule + "': ";
    CHECK(result.message.rfind(prefix, 0) == 0);
    CHECK(result.message.find(prefix, prefix.size()) == std::string::npos);  // said once, not twice
    CHECK(schedule == nullptr);
  }
  // The accepted-options list is part of the unknown-option message.
  frugal_schedule* schedule = nullptr;
  auto options = options_of({{"total_steps", "10"}, {"warmup_step", "2"}});
  const auto result = outcome(frugal_schedule_create(context.get(), "cosine", options.get(), &schedule));
  CHECK(result.message.find("accepted: lr, min_lr, warmup_steps, total_steps") != std::string::npos);
}

TEST_CASE("a negative step is OUT_OF_RANGE and leaves the output untouched") {
  auto context = lr_context();
  auto schedule = host::make_schedule(context.get(), "constant", nullptr);
  double lr = -7.0;
  const auto result = outcome(frugal_schedule_lr(schedule.get(), -1, &lr));
  CHECK(result.code == FRUGAL_ERR_OUT_OF_RANGE);
  CHECK(result.message.find("step must be >= 0, got -1") != std::string::npos);
  CHECK(lr == -7.0);
}

TEST_CASE("schedules flagged thread-safe give the same values from many threads") {
  auto context = lr_context();
  frugal_strategy_info info{};
  info.struct_size = sizeof(info);
  host::check(frugal_context_find_strategy(context.get(), FRUGAL_KIND_SCHEDULE, "cosine", &info));
  REQUIRE((info.flags & FRUGAL_STRATEGY_THREAD_SAFE) != 0);
  auto options = options_of({{"lr", "1"}, {"warmup_steps", "10"}, {"total_steps", "1000"}});
  auto schedule = host::make_schedule(context.get(), "cosine", options.get());
  std::vector<double> serial(1000);
  for (int64_t s = 0; s < 1000; ++s) host::check(frugal_schedule_lr(schedule.get(), s, &serial[s]));
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int64_t s = 0; s < 1000; ++s) {
        double lr = 0;
        if (frugal_schedule_lr(schedule.get(), s, &lr) != nullptr || lr != serial[s]) ++mismatches[t];
      }
    });
  for (auto& thread : threads) thread.join();
  CHECK(mismatches == std::vector<int>(4, 0));
}
