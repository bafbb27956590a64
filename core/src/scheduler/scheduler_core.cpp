#include "scheduler/scheduler_core.hpp"

#include <cmath>

#include <fmt/format.h>

#include "context.hpp"
#include "error.hpp"

namespace frugal::scheduling {
namespace {

constexpr size_t kMaxPolicies = 64;

}  // namespace

SchedulerCore::SchedulerCore(const frugal_context* context, const frugal_scheduler_config& config)
    : ledger_(config.gpus_per_node == 0 ? 1u : config.gpus_per_node) {
  if (config.reserved0 != 0)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "config.reserved0 is {}; it must be 0", config.reserved0);
  if (config.policy_count > kMaxPolicies)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "config.policy_count is {}; at most {} policies", config.policy_count,
         kMaxPolicies);
  if (config.policy_count > 0 && config.policies == nullptr)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "config.policies is NULL but config.policy_count is {}", config.policy_count);

  if (config.schedule != nullptr) {
    schedule_name_ = config.schedule;
    auto resolved = resolve_strategy(context, FRUGAL_KIND_SCHEDULE, config.schedule);
    schedule_ = std::make_unique<ScheduleInstance>(resolved.plugin, *resolved.record,
                                                   fmt::format("schedule '{}'", config.schedule));
    schedule_->create(config.schedule_options);
  }
  for (size_t i = 0; i < config.policy_count; ++i) {
    const char* name = config.policies[i];
    if (name == nullptr) fail(FRUGAL_ERR_INVALID_ARGUMENT, "config.policies[{}] is NULL", i);
    auto resolved = resolve_strategy(context, FRUGAL_KIND_POLICY, name);
    PolicySlot slot{name, std::make_unique<StrategyInstance<frugal_policy_vtable>>(resolved.plugin, *resolved.record,
                                                                                   fmt::format("policy '{}'", name))};
    slot.instance->create(config.policy_options != nullptr ? config.policy_options[i] : nullptr);
    policies_.push_back(std::move(slot));
  }
  proposals_.reserve(policies_.size());
}

void SchedulerCore::require_usable(const char* what) const {
  if (!failure_.empty())
    fail(FRUGAL_ERR_FAILED_PRECONDITION, "cannot {}: the scheduler failed earlier ({}); import a saved state to go on",
         what, failure_);
}

double SchedulerCore::schedule_lr(int64_t step) { return schedule_ != nullptr ? checked_lr(*schedule_, step) : 0.0; }

frugal_decision SchedulerCore::step(const frugal_telemetry& t) {
  require_usable("step");
  check_telemetry(t, previous_);
  // The schedule is a pure function of the step: a failure here changes nothing.
  const double lr = schedule_lr(t.step);

  proposals_.clear();
  const frugal_telemetry seen = as_policies_see(t);
  try {
    for (PolicySlot& policy : policies_) {
      Proposal p{&policy.name, frugal_decision{}};
      p.decision.struct_size = sizeof(frugal_decision);
      policy.instance->call(&frugal_policy_vtable::decide, &seen, &p.decision);
      check_proposal(p);
      proposals_.push_back(p);
    }
  } catch (const Error& e) {
    // Earlier policies have consumed the record: the instances no longer
    // agree on what they saw, so the scheduler refuses to go on guessing.
    failure_ = fmt::format("at step {}: {}", t.step, e.what());
    throw;
  }

  const bool restarted = (t.flags & FRUGAL_TELEMETRY_RESTARTED) != 0;
  const bool emergency = t.preemption_notice_s > 0 && !notice_active_ && !restarted;
  ledger_.book(t, previous_.present ? previous_.wall_s : 0.0);
  previous_ = PreviousRecord{true, t.wall_time_s, t.step, t.tokens};
  notice_active_ = t.preemption_notice_s > 0 && !restarted;
  return merge_proposals(t, lr, proposals_, emergency, reason_);
}

std::vector<std::byte> SchedulerCore::policy_state(PolicySlot& policy) {
  size_t size = 0;
  policy.instance->export_state(nullptr, 0, &size);
  std::vector<std::byte> blob(size);
  size_t written = 0;
  policy.instance->export_state(blob.data(), blob.size(), &written);
  if (written != size)
    fail(FRUGAL_ERR_INTERNAL, "{}: export_state reported {} bytes, then wrote {}", policy.instance->label(), size,
         written);
  return blob;
}

}  // namespace frugal::scheduling
