#include "run_scheduler.hpp"

#include <array>

namespace frugal_demo {

using frugal::host::check;

RunScheduler::RunScheduler(frugal_context* context, const RunPlan& plan) {
  frugal::host::Options schedule;
  schedule.set("lr", plan.lr)
      .set("min_lr", plan.min_lr)
      .set("warmup_steps", plan.warmup_steps)
      .set("total_steps", plan.total_steps);
  frugal::host::Options cadence;
  cadence.set("heartbeat_interval_s", plan.heartbeat_every_job_s).set("full_interval_steps", plan.full_every_steps);
  frugal::host::Options spot;
  // A window of 10 records tested 3 times in a row: the trend has to hold
  // over 30 steps. Two preemptions within the run are a spike, and the
  // cooldown outlasts the run: after them the job stays on reserved.
  spot.set("window", 10)
      .set("confirmations", 3)
      .set("min_spot_s", plan.min_spot_job_s)
      .set("reserved_price", plan.reserved_price)
      .set("max_preemptions", 2)
      .set("preemption_window_s", plan.budget_job_s())
      .set("cooldown_s", plan.budget_job_s());
  const std::array<const char*, 2> policies{"checkpoint_cadence", "spot_phase"};
  const std::array<const frugal_options*, 2> policy_options{cadence.get(), spot.get()};

  frugal_scheduler_config config{};
  config.struct_size = sizeof(config);
  config.schedule = "cosine";
  config.schedule_options = schedule.get();
  if (plan.policies) {
    config.policies = policies.data();
    config.policy_options = policy_options.data();
    config.policy_count = policies.size();
  }
  scheduler_ = frugal::host::make_scheduler(context, config);
}

Decision RunScheduler::step(const frugal_telemetry& telemetry) {
  frugal_decision decision{};
  decision.struct_size = sizeof(decision);
  check(frugal_scheduler_step(scheduler_.get(), &telemetry, &decision));
  return Decision{decision.lr, decision.checkpoint, decision.resource, decision.reason ? decision.reason : ""};
}

frugal_cost_ledger RunScheduler::ledger() const {
  frugal_cost_ledger ledger{};
  ledger.struct_size = sizeof(ledger);
  check(frugal_scheduler_ledger(scheduler_.get(), &ledger));
  return ledger;
}

}  // namespace frugal_demo
