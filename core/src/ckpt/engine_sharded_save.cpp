// Saving with a comm: the agreement before the snapshot and the two-phase
// commit after the shards. Every rank persists its own shards; only when
// all of them are durable do the ranks exchange their records, and rank 0
// writes the one manifest that commits the whole job's checkpoint. A rank
// that fails, dies or stalls means no manifest: the previous checkpoint
// stays the newest on every rank.
#include <fmt/format.h>

#include <array>
#include <chrono>

#include "ckpt/engine.hpp"
#include "hash.hpp"

namespace frugal::ckpt {
namespace {

using Clock = std::chrono::steady_clock;

const char* kind_name(int64_t kind) { return kind == FRUGAL_CKPT_FULL ? "full" : "heartbeat"; }

// Rank 0's merge of every rank's part: its header and metadata, the
// metadata of every other rank that saved different bytes, every rank's
// shards, and the records placed in them, renumbered.
Manifest merge_parts(const std::vector<Manifest>& parts) {
  Manifest out = parts.front();
  out.shards.clear();
  out.tensors.clear();
  out.states.clear();
  out.rank_metadata.clear();
  for (size_t r = 1; r < parts.size(); ++r)
    if (parts[r].metadata != out.metadata) out.rank_metadata.push_back({static_cast<uint32_t>(r), parts[r].metadata});
  for (const Manifest& part : parts) {
    const auto base = static_cast<uint32_t>(out.shards.size());
    out.shards.insert(out.shards.end(), part.shards.begin(), part.shards.end());
    for (TensorRecord t : part.tensors) {
      t.shard += base;
      out.tensors.push_back(std::move(t));
    }
    for (StateRecord st : part.states) {
      st.shard += base;
      out.states.push_back(std::move(st));
    }
  }
  return out;
}

}  // namespace

uint64_t Engine::agree_on_save(int32_t kind, const frugal_ckpt_save_args& args, uint64_t sequence, bool ready,
                               std::optional<std::chrono::steady_clock::time_point> deadline) {
  // The metadata's size and checksum tell each rank which ranks' bytes the
  // manifest will hold (those that differ from rank 0's), so a job whose
  // metadata cannot fit is refused before any snapshot.
  const auto metadata_sum = static_cast<int64_t>(xxh3(args.metadata, args.metadata_size));
  const std::array<int64_t, 7> mine{
      kind,          static_cast<int64_t>(args.step),          static_cast<int64_t>(sequence),
      ready ? 1 : 0, frugal_preemption_pending() != 0 ? 1 : 0, static_cast<int64_t>(args.metadata_size),
      metadata_sum};
  std::vector<int64_t> all;
  {
    const GroupComm::Deadline bounded(group_->caller(), deadline);
    all = group_->caller().all_gather(mine);
  }
  constexpr size_t kWidth = mine.size();
  // A notice that reached one node reaches every rank with the job's next
  // save, whatever else the agreement decides.
  for (size_t r = 0; r < all.size() / kWidth; ++r)
    if (all[kWidth * r + 4] != 0) frugal_preemption_notify();
  for (size_t r = 0; r < all.size() / kWidth; ++r)
    if (all[kWidth * r + 3] == 0)
      fail(FRUGAL_ERR_DEADLINE_EXCEEDED,
           "frugal_ckpt_emergency_save: the previous checkpoint of rank {} was still persisting at the deadline; "
           "nothing was saved on any rank",
           r);
  for (size_t r = 1; r < all.size() / kWidth; ++r)
    if (all[kWidth * r] != all[0] || all[kWidth * r + 1] != all[1])
      fail(FRUGAL_ERR_INVALID_ARGUMENT,
           "frugal_ckpt_save: every rank must save the same kind at the same step, but rank 0 saves {} at step {} "
           "and rank {} {} at step {}; nothing was saved",
           kind_name(all[0]), all[1], r, kind_name(all[kWidth * r]), all[kWidth * r + 1]);
  uint64_t job_metadata = static_cast<uint64_t>(all[5]);
  for (size_t r = 1; r < all.size() / kWidth; ++r)
    if (all[kWidth * r + 5] != all[5] || all[kWidth * r + 6] != all[6])
      job_metadata += static_cast<uint64_t>(all[kWidth * r + 5]);
  if (job_metadata > kMaxMetadataBytes)
    fail(FRUGAL_ERR_OUT_OF_RANGE,
         "frugal_ckpt_save: the ranks' metadata comes to {} bytes (rank 0's and each rank's that differs), more than "
         "the {} MiB a checkpoint holds; nothing was saved",
         job_metadata, kMaxMetadataBytes >> 20);
  return static_cast<uint64_t>(all[2]);  // the writer's sequence
}

bool Engine::agree_on_preemption() {
  const bool mine = frugal_preemption_pending() != 0;
  if (!group_) return mine;
  // The caller's sub-group, never under the lock: like a save's agreement.
  const bool any = group_->caller().any(mine);
  if (any) frugal_preemption_notify();
  return any;
}

void Engine::remove_own(const std::string& checkpoint) const {
  if (!group_) {
    remove_checkpoint(checkpoint);
    return;
  }
  const std::string own = key_of(checkpoint) + "/" + fmt::format("r{:05}-", group_->rank());
  std::vector<std::string> keys;
  store_->list(own, [&](const std::string& key, uint64_t) {
    keys.push_back(key);
    return true;
  });
  for (const auto& key : keys) store_->remove(key);
}

uint64_t Engine::persist_sharded(Job& job) {
  Manifest& m = job.manifest;
  const std::string base = key_of(m.name);
  const int32_t rank = group_->rank();
  // Phase 1, each rank alone: its shards, durable. A failure here is not
  // thrown yet: every rank must still reach the exchange, or the others
  // would wait for it until their timeout.
  std::string failure;
  try {
    if (rank == 0) claim_.reserve(m.sequence, "writing it");
    write_shards(job, base);
    // An emergency checkpoint commits only if every rank made it in time.
    if (job.deadline && Clock::now() > *job.deadline)
      fail(FRUGAL_ERR_DEADLINE_EXCEEDED, "rank {} made its shards durable {:.3f} s after the emergency deadline", rank,
           std::chrono::duration<double>(Clock::now() - *job.deadline).count());
  } catch (const std::exception& e) {
    failure = e.what();
    try {
      remove_own(m.name);
    } catch (...) {
    }
  }
  // Phase 2: the records (or why there are none), to every rank.
  std::vector<uint8_t> part;
  if (failure.empty()) {
    part = encode_manifest(m);
    part.insert(part.begin(), 1);
  } else {
    part.assign(failure.begin(), failure.end());
    part.insert(part.begin(), 0);
  }
  std::vector<std::vector<uint8_t>> parts;
  try {
    // An emergency save's ranks wait for each other only until the deadline.
    const GroupComm::Deadline bounded(group_->worker(), job.deadline);
    parts = group_->worker().all_gather_bytes(part);
  } catch (const Error& e) {
    // Nobody commits without every part; a manifest can only exist if
    // rank 0 got them all, which this rank cannot know: it keeps its
    // shards (retention removes them if no manifest names them).
    throw Error(e.code(), fmt::format("checkpoint {} was not committed: the ranks could not exchange their records "
                                      "({}); the previous checkpoint stays the newest",
                                      m.name, e.what()));
  }
  // Phase 3, rank 0: merge, check and commit; then every rank learns the
  // verdict ("" = committed).
  std::string verdict;
  uint64_t manifest_bytes = 0;
  if (rank == 0) {
    std::vector<Manifest> decoded;
    for (size_t r = 0; r < parts.size() && verdict.empty(); ++r) {
      const auto& p = parts[r];
      if (p.empty() || p.front() == 0) {
        verdict = fmt::format("rank {} could not write its shards: {}", r,
                              p.empty() ? std::string("(no reason)") : std::string(p.begin() + 1, p.end()));
        break;
      }
      auto d = decode_manifest(std::vector<uint8_t>(p.begin() + 1, p.end()), ManifestScope::part);
      if (d.status != FRUGAL_CKPT_VALID)
        verdict = fmt::format("the records of rank {} do not decode: {}", r, d.reason);
      else if (d.manifest.name != m.name)
        verdict = fmt::format("rank {} saved checkpoint {}, rank 0 {}", r, d.manifest.name, m.name);
      decoded.push_back(std::move(d.manifest));
    }
    if (verdict.empty()) {
      try {
        const Manifest merged = merge_parts(decoded);
        const auto bytes = encode_manifest(merged);
        // The whole checkpoint's rules (every tensor covered exactly once)
        // before it can become the newest.
        if (auto check = decode_manifest(bytes); check.status != FRUGAL_CKPT_VALID)
          fail(FRUGAL_ERR_INVALID_ARGUMENT, "the ranks' slices are not one checkpoint: {}", check.reason);
        claim_.check_current("committing it");
        if (job.deadline && Clock::now() > *job.deadline)
          fail(FRUGAL_ERR_DEADLINE_EXCEEDED, "the emergency deadline passed before rank 0 could commit");
        store_->put(base + "/manifest", bytes.data(), bytes.size());  // the commit point of the whole job
        manifest_bytes = bytes.size();
      } catch (const std::exception& e) {
        verdict = e.what();
      }
    }
  }
  std::string told;
  try {
    told = group_->worker().broadcast_text(verdict);
  } catch (const Error& e) {
    throw Error(e.code(), fmt::format("checkpoint {}: rank 0's verdict did not arrive ({}); whether it was "
                                      "committed is for a restore to find",
                                      m.name, e.what()));
  }
  if (!told.empty()) {
    try {
      if (rank == 0)
        remove_checkpoint(m.name);  // every rank's shards: no manifest names them
      else if (failure.empty())
        remove_own(m.name);
    } catch (...) {
    }
    throw Error(
        FRUGAL_ERR_FAILED_PRECONDITION,
        fmt::format("checkpoint {} was not committed: {}; the previous checkpoint stays the newest", m.name, told));
  }
  return m.shard_bytes() + manifest_bytes;
}

}  // namespace frugal::ckpt
