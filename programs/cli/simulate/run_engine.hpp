// One simulated run of one plan: an event-driven loop over the job clock
// that reports telemetry to a DecisionSource and obeys its decisions.
//
// Events: a regular record every telemetry_interval_s (counted from the
// last record), the decision's next_due_s, a preemption notice, a
// preemption, the end of a checkpoint stall, the end of the work. Training
// between events is one multiplication (tokens += rate x dt), so a
// 400-hour job costs a few hundred records, not millions of steps.
//
// Obeying a decision: a checkpoint stalls training for the job's full or
// heartbeat cost and is reported (checkpoint_done, checkpoint_stall_s) on a
// record at its end; a different resource class or node count moves the
// job (a heartbeat first when work is unsaved, then restart_s of paid
// downtime on the new capacity, reported as a restart); stop ends the run.
// A preemption loses the work since the last completed checkpoint, then
// waits for capacity (unpaid) and restarts (paid), and is reported by a
// FRUGAL_TELEMETRY_RESTARTED record covering all of it.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "decision_source.hpp"
#include "event_budget.hpp"
#include "job.hpp"
#include "trace.hpp"

namespace frugal::simulate {

// What a run needs besides the decision source; prepared once per plan.
struct RunSetup {
  const Job* job = nullptr;
  const PlanSpec* plan = nullptr;
  const Trace* trace = nullptr;  // nullptr: Monte-Carlo preemptions and the job's prices
  double target_tokens = 0.0;    // processed tokens that finish the work
  double max_wall_s = 0.0;       // a run still going then is cut
  // Counts the runs' records (events), for a progress display; nullable.
  // Added in batches during a run and exactly by its end.
  std::atomic<uint64_t>* events = nullptr;
  // A run with more records than this fails (kMaxEventsPerRun; tests lower it).
  double max_events = kMaxEventsPerRun;
};
RunSetup make_run_setup(const Job& job, const PlanSpec& plan, const Trace* trace);

struct RunResult {
  bool finished = false;     // the work was done (not stopped, not cut)
  bool cut = false;          // max_wall_s reached
  uint32_t stop_reason = 0;  // FRUGAL_STOP_* when a decision stopped the run
  double wall_s = 0.0;
  // The engine's own accounting, independent of the source's ledger.
  double dollars = 0.0, spot_dollars = 0.0, reserved_dollars = 0.0;
  double productive_s = 0.0, stall_s = 0.0, lost_s = 0.0;
  double productive_dollars = 0.0, stall_dollars = 0.0, lost_dollars = 0.0;
  double fleet_gpu_hours = 0.0;   // nodes x GPUs x wall time (waiting included)
  double useful_gpu_hours = 0.0;  // the kept work at one node's per-GPU rate
  double processed_tokens = 0.0;  // kept at the end
  double loss_first = 0.0, loss_last = 0.0;
  int64_t preemptions = 0, moves = 0, records = 0;
  int64_t checkpoints_full = 0, checkpoints_heartbeat = 0;
  bool has_ledger = false;
  frugal_cost_ledger ledger{};
};

// A point of a run's timeline (for plots): after each record.
struct TimelinePoint {
  double wall_s;
  double dollars;
  double loss;
  int32_t resource;
  uint32_t nodes;
  uint32_t flags;
};

// Runs once. `seed` drives preemptions, capacity waits and loss noise (in
// separate streams). `timeline`, when not null, receives a point per
// record. Throws host::Exception when the source fails and
// std::runtime_error when decisions never let time advance or the run
// passes kMaxEventsPerRun records (event_budget.hpp).
RunResult simulate_run(const RunSetup& setup, DecisionSource& source, uint64_t seed,
                       std::vector<TimelinePoint>* timeline = nullptr);

// Empty when the run's books balance: the source's ledger against the
// engine's own sums (dollars, spot/reserved, productive/stall/lost time and
// dollars, within `tolerance` relative), and productive + stall + lost ==
// wall time, in both. Otherwise says what differs.
std::string check_conservation(const RunResult& result, double tolerance = 1e-9);

}  // namespace frugal::simulate
