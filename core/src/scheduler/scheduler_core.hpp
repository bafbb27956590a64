// The run scheduler behind frugal_scheduler_*: an optional LR schedule, the
// policy instances in priority order, the ledger, and the bookkeeping that
// travels in its state blob. Internal to libfrugal.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "frugal/context.h"
#include "frugal/policy_vtable.h"
#include "frugal/schedule_vtable.h"
#include "frugal/scheduler.h"
#include "schedule_instance.hpp"
#include "scheduler/cost_ledger.hpp"
#include "scheduler/decision_merge.hpp"
#include "scheduler/telemetry_check.hpp"
#include "strategy_instance.hpp"

namespace frugal::scheduling {

struct PolicySlot {
  std::string name;  // as configured ("spot_phase" or "policy_cost/spot_phase")
  std::unique_ptr<StrategyInstance<frugal_policy_vtable>> instance;
};

class SchedulerCore {
 public:
  // Creates the schedule and every policy; `config` is the caller's,
  // read honouring its struct_size.
  SchedulerCore(const frugal_context* context, const frugal_scheduler_config& config);

  // Validates, asks the schedule and the policies, books, merges. The
  // decision's reason points into this object until the next call.
  frugal_decision step(const frugal_telemetry& t);

  [[nodiscard]] frugal_cost_ledger ledger() const { return ledger_.view(); }

  void export_state(void* buffer, std::size_t capacity, std::size_t* size);
  void import_state(std::span<const std::byte> blob);

 private:
  void require_usable(const char* what) const;
  double schedule_lr(int64_t step);
  std::vector<std::byte> policy_state(PolicySlot& policy);

  std::string schedule_name_;
  std::unique_ptr<ScheduleInstance> schedule_;
  std::vector<PolicySlot> policies_;
  CostLedger ledger_;
  PreviousRecord previous_;
  bool notice_active_ = false;  // a preemption notice is running (its heartbeat was asked for)
  std::string failure_;         // non-empty once a policy failed mid-step
  std::vector<Proposal> proposals_;
  std::string reason_;
};

}  // namespace frugal::scheduling
