// The run scheduler behind frugal_scheduler_*: an optional LR schedule, the
// policy instances in priority order, the ledger, and the bookkeeping that
// travels in its state blob. Internal to libfrugal.
#pragma once

#include <cstddef>
#include <exception>
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
#include "scheduler/rank_group.hpp"
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
  // read honouring its struct_size. With config.comm, collective: splits
  // the scheduler's ranks, then the ranks agree that every one created the
  // same strategies (or all fail).
  SchedulerCore(const frugal_context* context, const frugal_scheduler_config& config);

  // Validates, asks the schedule and the policies, books, merges. The
  // decision's reason points into this object until the next call.
  // Across ranks `t` is this rank's record, and `refused` the error its
  // arguments already earned (the step still takes part in the
  // collective, so every rank fails together, then rethrows it).
  frugal_decision step(const frugal_telemetry& t, const std::exception_ptr& refused = nullptr);

  // Whether the scheduler decides for several ranks (a comm was given).
  [[nodiscard]] bool across_ranks() const noexcept { return ranks_ != nullptr; }

  [[nodiscard]] frugal_cost_ledger ledger() const { return ledger_.view(); }

  void export_state(void* buffer, std::size_t capacity, std::size_t* size);
  void import_state(std::span<const std::byte> blob);

 private:
  void create_strategies(const frugal_context* context, const frugal_scheduler_config& config);
  // With a comm: every rank's create outcome and configured names, gathered.
  void agree_on_create(const std::exception_ptr& own);
  // With a comm: the job's record from every rank's, or the error every
  // rank gives; changes nothing but the failed state (a rank failed, the
  // ranks diverged).
  frugal_telemetry job_record(const frugal_telemetry& mine, const std::exception_ptr& refused);
  // The decision for an accepted record (checked against previous_).
  frugal_decision decide(const frugal_telemetry& t);
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
  std::unique_ptr<RankGroup> ranks_;  // nullptr for one process
  uint64_t digest_ = 0;               // across ranks: the last step's outcome (or imported blob); 0 before any
};

}  // namespace frugal::scheduling
