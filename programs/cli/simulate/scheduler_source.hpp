// A plan's scheduler configuration as the C API takes it, and the
// DecisionSource that drives a real frugal_scheduler through it.
#pragma once

#include <cstddef>
#include <vector>

#include "decision_source.hpp"
#include "frugal/sdk/host.hpp"
#include "job.hpp"

namespace frugal::simulate {

// frugal_options for the schedule and every policy of a plan, and the
// frugal_scheduler_config pointing at them (and at the plan's names: the
// plan must outlive this object).
class PlanConfig {
 public:
  PlanConfig(const Job& job, const PlanSpec& plan);
  PlanConfig(const PlanConfig&) = delete;
  PlanConfig& operator=(const PlanConfig&) = delete;

  [[nodiscard]] const frugal_scheduler_config& config() const { return config_; }

 private:
  host::OptionsPtr schedule_options_;
  std::vector<host::OptionsPtr> policy_options_;
  std::vector<const char*> policy_names_;
  std::vector<const frugal_options*> policy_option_ptrs_;
  frugal_scheduler_config config_{};
};

// One scheduler, reused for many runs: begin_run restores the state it had
// right after creation (frugal_scheduler_import_state), which is cheaper
// than creating the schedule and every policy again.
class SchedulerSource final : public DecisionSource {
 public:
  // Throws host::Exception when the scheduler cannot be created (an
  // unknown policy, a bad option).
  SchedulerSource(frugal_context* context, const PlanConfig& config);

  void begin_run() override;
  const frugal_decision& step(const frugal_telemetry& telemetry) override;
  bool ledger(frugal_cost_ledger& out) const override;

 private:
  host::SchedulerPtr scheduler_;
  std::vector<std::byte> fresh_state_;
  frugal_decision decision_{};
};

}  // namespace frugal::simulate
