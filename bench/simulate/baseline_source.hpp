// The benchmark's baseline: the simulator's event loop driven by a trivial
// in-process decision function instead of a frugal_scheduler, so the time
// the scheduler and its policies take is visible as a ratio.
#pragma once

#include <cstdint>

#include "decision_source.hpp"
#include "job.hpp"

namespace frugal::bench::simulate {

// Decides what plan A's checkpoint_cadence does, without the C API: a full
// checkpoint every `every_steps` steps (counted from the last completed one
// or the restart), at least a heartbeat on the first record of a notice,
// and the resource class and nodes that ran. Keeps no ledger.
class BaselineSource final : public frugal::simulate::DecisionSource {
 public:
  explicit BaselineSource(int64_t every_steps) : every_steps_(every_steps) {}

  void begin_run() override;
  const frugal_decision& step(const frugal_telemetry& telemetry) override;
  bool ledger(frugal_cost_ledger& out) const override;

 private:
  int64_t every_steps_;
  int64_t last_full_step_ = 0;
  bool in_notice_ = false;
  frugal_decision decision_{};
};

// The full_interval_steps of the plan's checkpoint_cadence, else the job's.
int64_t baseline_every_steps(const frugal::simulate::Job& job, const frugal::simulate::PlanSpec& plan);

}  // namespace frugal::bench::simulate
