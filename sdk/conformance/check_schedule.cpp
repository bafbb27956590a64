// Schedules (schedule_vtable.h): lr finite for steps >= 0, negative steps
// refused, determinism and thread safety as flagged.
#include <cmath>
#include <vector>

#include "frugal/schedule_vtable.h"
#include "strategy_checks.hpp"

namespace frugal::conformance {

namespace {

constexpr int64_t kSteps[] = {0, 1, 2, 10, 99, 100, 1000, 12345, 1000000};

// lr at every kSteps step; `error` gets the first failure.
std::vector<double> curve(const frugal_schedule_vtable* vt, void* instance, std::string& error) {
  std::vector<double> out;
  for (const int64_t step : kSteps) {
    double lr = 0;
    const Error e(vt->lr(instance, step, &lr));
    if (e) {
      error = "lr(step " + std::to_string(step) + ") -> " + e.describe();
      return out;
    }
    out.push_back(lr);
  }
  return out;
}

}  // namespace

void check_schedule_core(Checks& c) {
  c.begin("core");
  const Options options(c.user_options());
  frugal_schedule* schedule = nullptr;
  const Error e(frugal_schedule_create(c.s.context, c.s.label.c_str(), options.p, &schedule));
  if (e) return c.fail("core", "frugal_schedule_create: " + e.describe());
  std::string bad;
  for (const int64_t step : kSteps) {
    double lr = 0;
    const Error le(frugal_schedule_lr(schedule, step, &lr));
    if (le) {
      bad = "frugal_schedule_lr(step " + std::to_string(step) + ") -> " + le.describe();
      break;
    }
  }
  frugal_schedule_destroy(schedule);
  c.check(bad.empty(), "core", bad.empty() ? "frugal_schedule_lr accepts every rate the plugin gives" : bad);
}

void check_schedule(Checks& c) {
  const auto* vt = static_cast<const frugal_schedule_vtable*>(c.s.vtable);
  Instance a = c.create();
  if (!a) return;
  c.begin("lr-finite");
  std::string error;
  const std::vector<double> reference = curve(vt, a.get(), error);
  bool finite = error.empty();
  for (const double lr : reference) finite = finite && std::isfinite(lr);
  c.check(finite, "lr-finite",
          finite ? "lr is finite at steps 0..1000000 (schedule_vtable.h: must be finite)"
                 : (error.empty() ? "a non-finite lr (schedule_vtable.h: must be finite)" : error));

  c.begin("invalid-arguments");
  double lr = 0;
  c.expect_error("invalid-arguments", "lr(step -1) (schedule_vtable.h: negative steps are rejected)",
                 vt->lr(a.get(), -1, &lr), FRUGAL_ERR_OUT_OF_RANGE);
  c.begin("null-arguments");
  c.expect_error("null-arguments", "lr(out NULL)", vt->lr(a.get(), 0, nullptr));

  if (c.s.flags & FRUGAL_STRATEGY_DETERMINISTIC) {
    c.begin("determinism");
    Instance b = c.create("determinism");
    if (b) {
      std::string error_b;
      const std::vector<double> again = curve(vt, b.get(), error_b);
      c.check(error_b.empty() && same_bytes(reference, again), "determinism",
              same_bytes(reference, again) ? "two instances give bit-identical rates (FRUGAL_STRATEGY_DETERMINISTIC)"
                                           : "two instances with the same options give different rates despite "
                                             "FRUGAL_STRATEGY_DETERMINISTIC");
    }
  }
  if (c.s.flags & FRUGAL_STRATEGY_THREAD_SAFE) {
    c.begin("thread-safety");
    constexpr int kThreads = 4;
    std::vector<std::vector<double>> results(kThreads);
    std::vector<std::string> errors(kThreads);
    run_concurrently(kThreads, [&](int t) {
      for (int round = 0; round < 50; ++round) results[t] = curve(vt, a.get(), errors[t]);
    });
    bool same = true;
    for (int t = 0; t < kThreads; ++t) same = same && errors[t].empty() && same_bytes(results[t], reference);
    c.check(same, "thread-safety",
            same ? "4 threads on one instance give the sequential rates (FRUGAL_STRATEGY_THREAD_SAFE)"
                 : "concurrent calls on one instance give rates other than sequential calls despite "
                   "FRUGAL_STRATEGY_THREAD_SAFE");
  }
}

}  // namespace frugal::conformance
