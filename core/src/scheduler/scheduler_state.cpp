// The scheduler's state blob: "FRSC", the format version, the schedule and
// policy names (a blob only restores into the same configuration), the
// previous record, the notice flag, the ledger as of a checkpoint, each
// policy's own blob, and an XXH3-64 of everything before it.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>

#include "error.hpp"
#include "frugal/sdk/checksum.hpp"
#include "scheduler/scheduler_core.hpp"
#include "state_frame.hpp"

namespace frugal::scheduling {
namespace {

constexpr BlobFrame kFrame{"FRSC", 1, "scheduler state"};

// A schedule or policy name: the ABI sets no length on strategy names, so
// only the bytes left bound it (the reader checks those).
constexpr std::size_t kMaxNameBytes = std::numeric_limits<std::size_t>::max();

std::vector<std::string> configured_names(const std::vector<PolicySlot>& policies) {
  std::vector<std::string> names;
  names.reserve(policies.size());
  for (const PolicySlot& p : policies) names.push_back(p.name);
  return names;
}

// Names for errors: "[checkpoint_cadence, spot_phase]".
std::string join_names(const std::vector<std::string>& names) { return fmt::format("[{}]", fmt::join(names, ", ")); }

}  // namespace

void SchedulerCore::export_state(void* buffer, std::size_t capacity, std::size_t* size) {
  require_usable("export the state");
  StateWriter out = begin_sealed(kFrame);
  out.text(schedule_name_);
  out.u32(static_cast<uint32_t>(policies_.size()));
  for (const PolicySlot& p : policies_) out.text(p.name);
  out.flag(previous_.present);
  out.f64(previous_.wall_s);
  out.i64(previous_.step);
  out.i64(previous_.tokens);
  out.flag(notice_active_);
  ledger_.save(out);
  for (PolicySlot& p : policies_) {
    const std::vector<std::byte> blob = policy_state(p);
    out.u64(blob.size());
    out.raw(blob);
  }
  const std::vector<std::byte> sealed = std::move(out).finish();
  // A copied export is a checkpoint here too, so this scheduler and one
  // that imports the blob hold the same ledger, bit for bit.
  if (copy_out(sealed, buffer, capacity, size, kFrame.subject)) ledger_.commit();
}

void SchedulerCore::import_state(std::span<const std::byte> blob) {
  StateReader in = open_sealed(blob, kFrame);

  const std::string schedule = in.text("schedule name", kMaxNameBytes);
  const uint32_t count = in.u32("policy count");
  // Each name takes at least its 4-byte length.
  if (count > in.remaining() / 4)
    in.corrupted(
        fmt::format("field 'policy count' is {}, more than the {} bytes left can hold", count, in.remaining()));
  std::vector<std::string> names(count);
  for (auto& n : names) n = in.text("policy name", kMaxNameBytes);
  const std::vector<std::string> mine = configured_names(policies_);
  if (schedule != schedule_name_)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "the state was saved with schedule '{}'; this scheduler has '{}'", schedule,
         schedule_name_);
  if (names != mine)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "the state was saved with policies {}; this scheduler has {}", join_names(names),
         join_names(mine));

  // Every field is checked as telemetry is (finite, in range) before
  // anything changes: later records are compared and booked against them.
  constexpr int64_t kMaxInt = std::numeric_limits<int64_t>::max();
  PreviousRecord previous;
  previous.present = in.flag("previous record");
  previous.wall_s = in.at_least("previous wall time", 0.0);
  previous.step = in.i64_in("previous step", 0, kMaxInt);
  previous.tokens = in.i64_in("previous tokens", 0, kMaxInt);
  const bool notice_active = in.flag("notice flag");
  CostLedger ledger = ledger_;
  ledger.load(in);
  std::vector<std::span<const std::byte>> policy_blobs;
  for (const std::string& n : names) {
    const uint64_t size = in.u64("policy state size");
    if (size > in.remaining())
      in.corrupted(fmt::format("policy '{}' claims {} bytes of state, {} left", n, size, in.remaining()));
    policy_blobs.push_back(in.raw("policy state", static_cast<std::size_t>(size)));
  }
  in.finish();

  // Import every policy; if one refuses, put back the ones already changed
  // so the scheduler stays exactly as it was (failed or not).
  std::vector<std::vector<std::byte>> backups;
  if (failure_.empty())
    for (PolicySlot& p : policies_) backups.push_back(policy_state(p));
  for (size_t i = 0; i < policies_.size(); ++i) {
    try {
      policies_[i].instance->import_state(policy_blobs[i].data(), policy_blobs[i].size());
    } catch (const Error&) {
      if (!backups.empty())
        for (size_t j = 0; j < i; ++j) policies_[j].instance->import_state(backups[j].data(), backups[j].size());
      throw;
    }
  }
  previous_ = previous;
  notice_active_ = notice_active;
  ledger_ = ledger;
  failure_.clear();
  // Across ranks the next step checks that every rank imported the same
  // blob (0 is kept for "nothing decided yet").
  if (ranks_ != nullptr) digest_ = std::max<uint64_t>(sdk::xxh3(blob), 1);
}

}  // namespace frugal::scheduling
