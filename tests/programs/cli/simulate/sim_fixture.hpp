// Shared pieces of the simulator tests: a context with the plugins the
// plans use, jobs written as JSON text, and single runs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "frugal/sdk/host.hpp"
#include "job.hpp"
#include "run_engine.hpp"
#include "trace.hpp"

namespace frugal::test {

// schedule_lr, policy_cost (when built) and the scripted probe_policy.
frugal_context* sim_context();

// A small job: 1 node of 8 GPUs, 1000 tokens/s per GPU, `hours` of work on
// one node, $10/node-h spot, $30 reserved, checkpoints 300 s full / 60 s
// heartbeat, restart 600 s, no preemption notice, no capacity wait, no loss
// noise, plans from `plans_json` (a JSON array). `extra` is spliced into
// the top-level object (e.g. "\"preemption\": {...},").
std::string job_json(double hours, const std::string& plans_json, const std::string& extra = "");
simulate::Job parse_test_job(const std::string& text);

// One run of plan `plan` of `job`, checked to balance its books.
simulate::RunResult run_plan(const simulate::Job& job, size_t plan, const simulate::Trace* trace, uint64_t seed = 1,
                             std::vector<simulate::TimelinePoint>* timeline = nullptr);

// Writes `text` to a fresh file in a temporary directory and returns its path.
std::string temp_file(const std::string& name, const std::string& text);

// The message of the InputError `f` throws ("" when it throws none).
template <typename F>
std::string input_error_of(F&& f);

}  // namespace frugal::test

#include "input_error.hpp"

template <typename F>
std::string frugal::test::input_error_of(F&& f) {
  try {
    f();
  } catch (const simulate::InputError& e) {
    return e.what();
  }
  return "";
}
