// How many events a simulation will take, estimated from the job's numbers
// before anything runs, and the limits that keep `frugal simulate` finite.
// Every field of a job file is bounded, but their products are not: 1e18
// tokens at 1e-9 tokens/s is 1e27 s of job clock, 3e23 telemetry records;
// a 1e-300 s trace period wraps around 1e306 times in a day. Such a job is
// refused up front with the fields that make it so; the engine enforces the
// per-run limit as well, for the events no estimate foresees (a policy that
// asks to be woken every millisecond).
#pragma once

#include <cstdint>
#include <string>

#include "job.hpp"
#include "trace.hpp"

namespace frugal::simulate {

// Telemetry records (the engine's events: every tick, checkpoint end,
// notice, restart and the finish is one) of one run.
inline constexpr double kMaxEventsPerRun = 1e7;
// ... and of all the Monte-Carlo runs of one plan (--runs x one run's).
inline constexpr double kMaxEventsPerPlan = 1e10;

// What one run of a plan will at least take, over the plan's ideal time
// (its tokens at its starting throughput; max_wall_h when shorter).
struct EventEstimate {
  double horizon_s = 0.0;    // the job clock estimated over
  double ticks = 0.0;        // regular records: horizon / telemetry_interval_s
  double preemptions = 0.0;  // expected on spot: Monte-Carlo MTBF, or the trace's changes
  double checkpoints = 0.0;  // checkpoint_cadence's timers and step cadence
  [[nodiscard]] double total() const {
    return ticks + 2.0 * preemptions + checkpoints;
  }  // a preemption: notice + restart
};

EventEstimate estimate_run_events(const Job& job, const PlanSpec& plan, const Trace* trace);

// InputError naming the plan, the estimate, the fields behind it and the
// limit, for the first plan over kMaxEventsPerRun or (x runs) over
// kMaxEventsPerPlan.
void check_event_budget(const Job& job, const Trace* trace, uint64_t runs);

}  // namespace frugal::simulate
