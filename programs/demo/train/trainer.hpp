// One attempt of one run (a worker process): builds the plan's model,
// data, strategies, scheduler and checkpoints through frugal, resumes from
// the newest checkpoint when there is one, and trains until the run's
// wall-time budget is spent (exit 0) or a preemption notice arrives
// (emergency heartbeat, exit kPreemptedExitCode).
#pragma once

#include "demo_options.hpp"

namespace frugal_demo {

// options.worker names the run; options.attempt says which attempt this is.
int run_worker(const DemoOptions& options);

}  // namespace frugal_demo
