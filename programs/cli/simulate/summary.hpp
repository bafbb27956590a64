// Statistics of a plan over its runs: what the table, the JSON and the plot
// show. Reduced in run order, so they are bit-identical for a seed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "job.hpp"
#include "run_engine.hpp"
#include "trace.hpp"

namespace frugal::simulate {

struct Stat {
  double mean = 0.0, p10 = 0.0, p50 = 0.0, p90 = 0.0, min = 0.0, max = 0.0;
};

// Linear-interpolated percentiles (the "type 7" of statistics packages).
Stat make_stat(std::vector<double> values);

struct PlanSummary {
  const PlanSpec* plan = nullptr;
  uint64_t runs = 0;
  uint64_t finished = 0, stopped = 0, cut = 0;
  Stat cost;         // dollars
  Stat wall_h;       // job-clock hours
  Stat gpu_hours;    // nodes x GPUs x wall time (the fleet the job held or waited for)
  Stat utilisation;  // useful GPU-hours / fleet GPU-hours
  Stat lost_h;       // work undone by preemptions, and downtime
  Stat stall_h;      // checkpoint stalls
  Stat restarts;     // preemptions + moves (ledger restarts)
  Stat preemptions;
  Stat checkpoints;       // full + heartbeat
  Stat dollars_per_loss;  // dollars / (first loss - best smoothed loss), the ledger's
  Stat spot_share;        // share of the dollars paid for spot capacity
  Stat final_loss;
};

PlanSummary summarize(const PlanSpec& plan, const std::vector<RunResult>& runs);

struct Report {
  const Job* job = nullptr;
  const Trace* trace = nullptr;   // nullptr: Monte-Carlo preemptions, the job's prices
  std::string trace_description;  // "" without a trace
  uint64_t runs = 0;
  uint64_t seed = 0;
  std::vector<PlanSummary> plans;
};

}  // namespace frugal::simulate
