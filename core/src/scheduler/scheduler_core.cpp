#include "scheduler/scheduler_core.hpp"

#include <cmath>

#include <fmt/format.h>

#include "context.hpp"
#include "error.hpp"
#include "frugal/sdk/checksum.hpp"
#include "scheduler/job_record.hpp"

namespace frugal::scheduling {
namespace {

constexpr size_t kMaxPolicies = 64;

// What the ranks must agree on at create: the schedule, the policies in
// order and the GPUs per node (options are the host's to keep equal).
uint64_t configuration_digest(const std::string& schedule, const std::vector<PolicySlot>& policies,
                              uint32_t gpus_per_node) {
  sdk::Xxh3Stream h;
  const auto text = [&h](const std::string& s) {
    const uint64_t size = s.size();
    h.update(&size, sizeof(size));
    h.update(s.data(), s.size());
  };
  text(schedule);
  for (const PolicySlot& p : policies) text(p.name);
  h.update(&gpus_per_node, sizeof(gpus_per_node));
  return h.digest();
}

std::string describe(const std::string& schedule, const std::vector<PolicySlot>& policies) {
  std::string out = fmt::format("schedule '{}', policies [", schedule);
  for (size_t i = 0; i < policies.size(); ++i) out += fmt::format("{}{}", i == 0 ? "" : ", ", policies[i].name);
  return out + "]";
}

}  // namespace

SchedulerCore::SchedulerCore(const frugal_context* context, const frugal_scheduler_config& config)
    : ledger_(config.gpus_per_node == 0 ? 1u : config.gpus_per_node) {
  if (config.comm == nullptr) {
    create_strategies(context, config);
    return;
  }
  ranks_ = std::make_unique<RankGroup>(config.comm);
  // Every rank takes part in the agreement, its own creation failed or not,
  // so a rank's bad option fails create on every rank rather than the
  // first step on the others.
  std::exception_ptr own;
  try {
    create_strategies(context, config);
  } catch (...) {
    own = std::current_exception();
  }
  agree_on_create(own);
}

void SchedulerCore::agree_on_create(const std::exception_ptr& own) {
  const uint32_t gpus = ledger_.gpus_per_node();
  const uint64_t mine[2] = {own ? 1u : 0u, own ? 0u : configuration_digest(schedule_name_, policies_, gpus)};
  const std::vector<uint64_t> all = ranks_->all_gather(mine, "agreeing on the configuration at create");
  if (own) std::rethrow_exception(own);
  const auto size = static_cast<size_t>(ranks_->size());
  for (size_t r = 0; r < size; ++r)
    if (all[2 * r] != 0)
      fail(FRUGAL_ERR_FAILED_PRECONDITION,
           "scheduler across {} ranks: rank {} could not create its scheduler (its error says why), so no rank has "
           "one",
           size, r);
  for (size_t r = 1; r < size; ++r)
    if (all[2 * r + 1] != all[1])
      fail(FRUGAL_ERR_INVALID_ARGUMENT,
           "scheduler across {} ranks: rank {} is configured with another schedule, other policies or another "
           "gpus_per_node than rank 0 (rank {} has {}, gpus_per_node {}); every rank must configure the same",
           size, r, ranks_->rank(), describe(schedule_name_, policies_), gpus);
}

void SchedulerCore::create_strategies(const frugal_context* context, const frugal_scheduler_config& config) {
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

frugal_decision SchedulerCore::step(const frugal_telemetry& t, const std::exception_ptr& refused) {
  if (!ranks_) {
    if (refused) std::rethrow_exception(refused);
    require_usable("step");
    check_telemetry(t, previous_);
    return decide(t);
  }
  const frugal_telemetry job = job_record(t, refused);
  const frugal_decision d = decide(job);
  digest_ = step_digest(d, reason_, ledger_.view());
  return d;
}

frugal_telemetry SchedulerCore::job_record(const frugal_telemetry& mine, const std::exception_ptr& refused) {
  RankPacket packet;
  packet.digest = digest_;
  std::exception_ptr own = refused;
  if (!own && failure_.empty()) {
    try {
      check_fields(mine);
    } catch (...) {
      own = std::current_exception();
    }
  }
  packet.status = own ? RankStatus::refused : !failure_.empty() ? RankStatus::failed : RankStatus::ok;
  if (packet.status == RankStatus::ok) packet.record = mine;
  const PacketWords words = pack(packet);
  // A failed exchange throws here: nothing has changed.
  const std::vector<uint64_t> all =
      ranks_->all_gather(words, fmt::format("telemetry all_gather at step {}", mine.step));

  if (own) std::rethrow_exception(own);  // this rank's refusal, with its own words
  require_usable("step");
  const auto size = static_cast<size_t>(ranks_->size());
  std::vector<RankPacket> packets;
  packets.reserve(size);
  for (size_t r = 0; r < size; ++r)
    packets.push_back(unpack(std::span<const uint64_t, kPacketWords>(all.data() + r * kPacketWords, kPacketWords)));

  // Every rank reads the same packets, so each check below ends the step
  // the same way on every rank.
  for (size_t r = 0; r < size; ++r)
    if (packets[r].status == RankStatus::failed) {
      failure_ = fmt::format("at step {}: the scheduler of rank {} had failed", mine.step, r);
      fail(FRUGAL_ERR_FAILED_PRECONDITION,
           "cannot step: the scheduler of rank {} of {} failed earlier (its error says why), so every rank's "
           "scheduler is failed now; import a saved state on every rank to go on",
           r, size);
    }
  for (size_t r = 1; r < size; ++r)
    if (packets[r].digest != packets[0].digest) {
      failure_ = fmt::format("at step {}: rank {} had decided otherwise than rank 0", mine.step, r);
      fail(FRUGAL_ERR_INTERNAL,
           "scheduler across {} ranks: what rank {} decided before step {} (decision, reason, ledger, or the state "
           "it imported) differs from rank 0's: a schedule or policy that is not deterministic, or ranks with other "
           "plugins, options or states. The scheduler is failed on every rank; import the same state on every rank "
           "to go on",
           size, r, mine.step);
    }
  for (size_t r = 0; r < size; ++r)
    if (packets[r].status == RankStatus::refused)
      fail(FRUGAL_ERR_INVALID_ARGUMENT,
           "rank {} of {} refused its telemetry at step {} (its error names the field); no rank booked the step", r,
           size, mine.step);

  std::vector<frugal_telemetry> records;
  records.reserve(size);
  for (const RankPacket& p : packets) records.push_back(p.record);
  const frugal_telemetry job = reduce_records(records, previous_);
  try {
    check_telemetry(job, previous_);
  } catch (const Error& e) {
    fail(e.code(), "the job's record across {} ranks: {}", size, e.what());
  }
  return job;
}

frugal_decision SchedulerCore::decide(const frugal_telemetry& t) {
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
