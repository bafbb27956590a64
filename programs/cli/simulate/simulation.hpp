// The whole simulation as the CLI, the tests and the benchmark run it:
// plugins found the way every host finds them, every plan's scheduler
// checked once up front (so a bad plan is an input error naming it, not a
// failure in the middle of the runs), the Monte-Carlo runs, the report.
#pragma once

#include <memory>
#include <vector>

#include "frugal/sdk/host.hpp"
#include "job.hpp"
#include "job_reader.hpp"
#include "monte_carlo.hpp"
#include "scheduler_source.hpp"
#include "summary.hpp"
#include "trace.hpp"

namespace frugal::simulate {

// A context with the plugins of FRUGAL_PLUGIN_PATH and the built-in
// directory loaded (load failures are logged by the core, not fatal).
host::ContextPtr open_plugin_context();

// The policy and LR schedule names the context's plugins provide.
KnownStrategies known_strategies(frugal_context* context);

// Every plan's scheduler configuration (for the sources) - or InputError
// "<job file>: plan 'name': <the scheduler's error>" for the first plan
// whose scheduler cannot be created.
std::vector<std::unique_ptr<PlanConfig>> plan_configs(frugal_context* context, const Job& job);

// Sources backed by real schedulers on `configs` (one per plan).
SourceFactory scheduler_factory(frugal_context* context, const std::vector<std::unique_ptr<PlanConfig>>& configs);

struct Simulation {
  std::vector<std::vector<RunResult>> results;  // [plan][run]
  Report report;
};

// Runs every plan of `job` `options.runs` times against `trace` (nullable),
// after check_event_budget (InputError for a job too big to simulate).
Simulation simulate(frugal_context* context, const Job& job, const Trace* trace, const MonteCarloOptions& options);

// "trace.json (skypilot, 144 gaps of 600 s)": for the reports.
std::string describe_trace(const Trace& trace);

}  // namespace frugal::simulate
