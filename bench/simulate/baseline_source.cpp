#include "baseline_source.hpp"

#include "option_values.hpp"

namespace frugal::bench::simulate {

void BaselineSource::begin_run() {
  last_full_step_ = 0;
  in_notice_ = false;
}

const frugal_decision& BaselineSource::step(const frugal_telemetry& t) {
  decision_ = frugal_decision{};
  decision_.struct_size = sizeof(decision_);
  decision_.resource = t.resource;
  decision_.target_nodes = t.nodes;
  decision_.reason = "";
  if ((t.flags & FRUGAL_TELEMETRY_RESTARTED) != 0 || t.checkpoint_done == FRUGAL_CKPT_FULL) last_full_step_ = t.step;
  const bool notice = t.preemption_notice_s > 0.0;
  if (notice && !in_notice_) decision_.checkpoint = FRUGAL_CKPT_HEARTBEAT;
  if (t.step - last_full_step_ >= every_steps_) decision_.checkpoint = FRUGAL_CKPT_FULL;
  in_notice_ = notice;
  return decision_;
}

bool BaselineSource::ledger(frugal_cost_ledger& out) const {
  out = frugal_cost_ledger{};
  return false;
}

int64_t baseline_every_steps(const frugal::simulate::Job& job, const frugal::simulate::PlanSpec& plan) {
  for (const auto& policy : plan.policies) {
    if (policy.name != "checkpoint_cadence") continue;
    if (const auto* every = frugal::simulate::find_option(policy.options, "full_interval_steps"))
      return every->int_value;
  }
  return job.checkpoint_every_steps;
}

}  // namespace frugal::bench::simulate
