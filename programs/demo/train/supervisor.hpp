// The parent process of a run: it never trains. It starts the worker (a
// fresh exec of this same binary with --worker, so no worker inherits a
// forked copy of threads), injects the plan's preemptions while the worker
// is on spot capacity, logs what it did, waits out the simulated capacity
// downtime, and starts the worker again, which resumes from the store.
#pragma once

#include <filesystem>

#include "demo_options.hpp"
#include "run_plan.hpp"

namespace frugal_demo {

// Runs `plan` to the end of its budget. Throws std::runtime_error when a
// worker fails on its own (its messages are on the terminal above).
void run_supervised(const DemoOptions& options, const RunPlan& plan, const std::filesystem::path& executable);

}  // namespace frugal_demo
