// Restoring a checkpoint of a job (manifest format 3) on any number of
// ranks, and every restore of an engine with a comm. The ranks first agree
// on one checkpoint (rank 0 proposes, newest first); each rank then reads
// and verifies only the blocks of the stored chunks that overlap the
// slices it registered, into its snapshot buffer; only when every rank
// succeeded does any rank write a registered byte. So all ranks restore
// the same step, or none restores anything.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>

#include "ckpt/chunk_box.hpp"
#include "ckpt/engine.hpp"
#include "dtype.hpp"
#include "frugal/managed_tensor.h"
#include "hash.hpp"

namespace frugal::ckpt {
namespace {

// A registered tensor's place in a checkpoint being restored.
struct TensorSource {
  const TensorRecord* rank_local = nullptr;  // this rank's own copy
  std::vector<const TensorRecord*> chunks;   // chunks of the global tensor
};

// Registered for full checkpoints only (e.g. optimizer moments): what a
// heartbeat leaves out and an older full checkpoint supplies.
bool full_only(uint32_t kinds) { return (kinds & FRUGAL_CKPT_HEARTBEAT) == 0; }

}  // namespace

// What one rank read and verified for a restore, before any rank writes.
struct Engine::SlicedStage {
  Found found;                  // the checkpoint
  std::optional<Found> source;  // the full checkpoint that supplied full-only state, if any did
  std::vector<std::pair<const Registered*, uint64_t>> tensors;  // staged, and where in snapshot_
  struct Import {
    const RegisteredState* state;
    std::vector<uint8_t> bytes;
    bool from_source;  // from `source`, not the checkpoint
  };
  std::vector<Import> imports;
  std::map<uint64_t, std::string> missing;  // registration order -> why it was not staged
  std::tuple<size_t, size_t, uint64_t> registrations;
  std::string checkpoint_problem;  // this rank cannot restore the checkpoint
  std::string source_problem;      // ... nor take full-only state from the proposed full one

  // What the other ranks learn: "" when all is staged, else 'C' or 'S' and why.
  [[nodiscard]] std::vector<uint8_t> verdict() const {
    const std::string text = !checkpoint_problem.empty() ? "C" + checkpoint_problem
                             : !source_problem.empty()   ? "S" + source_problem
                                                         : std::string();
    return {text.begin(), text.end()};
  }
};

void Engine::stage_from(const Found& found, bool source, SlicedStage& stage,
                        const std::map<const Registered*, uint64_t>& positions) {
  const Manifest& m = found.manifest;
  const int32_t rank = group_ ? group_->rank() : 0;
  // The writing job's rank this rank restores rank-local state from.
  const bool same_rank_exists = m.world_size == 0 ? rank == 0 : static_cast<uint32_t>(rank) < m.world_size;
  auto shard_rank = [&](uint32_t shard) { return m.world_size == 0 ? 0U : m.shards[shard].rank; };
  std::map<std::string, TensorSource> sources;
  for (const auto& t : m.tensors) {
    auto& where = sources[t.name];
    if (!t.rank_local)
      where.chunks.push_back(&t);
    else if (same_rank_exists && shard_rank(t.shard) == static_cast<uint32_t>(rank))
      where.rank_local = &t;
  }
  // From the full source only what the heartbeat left out: full-only
  // registrations, and only those not staged already.
  auto wanted = [&](uint64_t order, uint32_t registered_kinds) {
    return !source || (stage.missing.count(order) != 0 && full_only(registered_kinds));
  };
  // Shards of a manifest of one process carry no block checksums: each
  // is read whole, once, and checked against its own checksum.
  std::map<uint32_t, std::vector<uint8_t>> whole_shards;
  auto whole_shard = [&](uint32_t shard) -> const std::vector<uint8_t>& {
    auto [it, fresh] = whole_shards.try_emplace(shard);
    if (fresh) {
      std::vector<bool> wanted_shards(m.shards.size(), false);
      wanted_shards[shard] = true;
      it->second.resize(static_cast<size_t>(m.shards[shard].size));
      read_verified_shards(m, wanted_shards, it->second.data());
    }
    return it->second;
  };
  // Bytes [begin, end) of a record, verified: whole blocks read and
  // checked (format 3), or out of its verified whole shard. Returns the
  // bytes from `*first` on: the caller indexes them from there.
  std::vector<uint8_t> range;
  auto read_range = [&](const TensorRecord& t, uint64_t begin, uint64_t end, uint64_t* first) -> const uint8_t* {
    if (m.world_size == 0) {
      *first = 0;
      return whole_shard(t.shard).data() + t.offset;
    }
    const uint64_t b0 = begin / m.block_bytes;
    const uint64_t b1 = block_count(end, m.block_bytes);
    *first = b0 * m.block_bytes;
    const uint64_t last = std::min(b1 * m.block_bytes, t.bytes);
    range.resize(static_cast<size_t>(last - *first));
    store_->read(key_of(m.name) + "/" + m.shards[t.shard].key, t.offset + *first, range.data(), range.size());
    for (uint64_t b = b0; b < b1; ++b) {
      const uint64_t at = b * m.block_bytes - *first;
      const uint64_t size = std::min(m.block_bytes, t.bytes - b * m.block_bytes);
      if (checksums_enforced() && xxh3(range.data() + at, static_cast<size_t>(size)) != t.block_xxh3[b])
        fail(FRUGAL_ERR_DATA_CORRUPTED,
             "tensor '{}': block {} of the chunk at [{}] in shard '{}' of {} fails its checksum", t.name, b,
             fmt::join(t.offsets, ", "), m.shards[t.shard].key, m.name);
    }
    return range.data();
  };
  // In the checkpoint itself a tensor saved otherwise than registered is
  // refused; a full source that holds it otherwise just does not supply it.
  auto mismatch = [&](uint64_t order, std::string why) {
    if (!source) fail(FRUGAL_ERR_FAILED_PRECONDITION, "{}", why);
    stage.missing[order] = std::move(why);
  };
  bool supplied = false;
  for (const auto& t : tensors_) {
    if (!wanted(t.order, t.kinds)) continue;
    const auto it = sources.find(t.name);
    if (it == sources.end() || (it->second.chunks.empty() && it->second.rank_local == nullptr)) {
      stage.missing[t.order] =
          it != sources.end() && !same_rank_exists
              ? fmt::format("the job that wrote {} had {} ranks; no rank {} among them", m.name, m.world_size, rank)
              : fmt::format("not in {}", m.name);
      continue;
    }
    const size_t element = static_cast<size_t>(find_dtype(t.view.dtype)->bits / 8);
    const uint64_t at = positions.at(&t);
    uint8_t* dst = snapshot_.data() + at;
    if (it->second.rank_local != nullptr && !t.sliced) {
      const TensorRecord& r = *it->second.rank_local;
      if (r.dtype != t.view.dtype || r.shape != t.shape) {
        mismatch(t.order, fmt::format("tensor '{}' was saved in {} as {} [{}] but is registered as {} [{}]", t.name,
                                      m.name, frugal_dtype_name(r.dtype), fmt::join(r.shape, ", "),
                                      frugal_dtype_name(t.view.dtype), fmt::join(t.shape, ", ")));
        continue;
      }
      uint64_t first = 0;
      const uint8_t* bytes = read_range(r, 0, r.bytes, &first);
      if (r.bytes > 0) std::memcpy(dst, bytes, static_cast<size_t>(r.bytes));
      stage.tensors.emplace_back(&t, at);
      stage.missing.erase(t.order);
      supplied = true;
      continue;
    }
    if (it->second.chunks.empty()) {
      stage.missing[t.order] = fmt::format("{} holds '{}' only as rank-local tensors", m.name, t.name);
      continue;
    }
    const TensorRecord& any = *it->second.chunks.front();
    const std::vector<int64_t>& global = m.world_size == 0 ? any.shape : any.global_shape;
    const Box want{t.sliced ? t.offsets : std::vector<int64_t>(t.shape.size(), 0), t.shape};
    if (any.dtype != t.view.dtype || global != (t.sliced ? t.global_shape : t.shape)) {
      mismatch(t.order,
               fmt::format("tensor '{}' was saved in {} as {} [{}] but is registered as {} [{}] ({})", t.name, m.name,
                           frugal_dtype_name(any.dtype), fmt::join(global, ", "), frugal_dtype_name(t.view.dtype),
                           fmt::join(t.sliced ? t.global_shape : t.shape, ", "),
                           t.sliced ? "a slice of it" : "the whole tensor"));
      continue;
    }
    uint64_t copied = 0;
    for (const TensorRecord* c : it->second.chunks) {
      const Box stored{m.world_size == 0 ? std::vector<int64_t>(c->shape.size(), 0) : c->offsets, c->shape};
      const auto overlap = intersect(stored, want);
      if (!overlap) continue;
      // The chunk's bytes that hold the overlap.
      const auto [lo, hi] = element_span(stored, *overlap);
      uint64_t first = 0;
      const uint8_t* bytes = read_range(*c, lo * element, hi * element, &first);
      for_each_run(stored, want, *overlap, [&](const Run& run) {
        std::memcpy(dst + run.target * element, bytes + (run.source * element - first),
                    static_cast<size_t>(run.count * element));
        copied += run.count;
      });
    }
    if (copied != *element_count(t.shape))
      fail(FRUGAL_ERR_DATA_CORRUPTED, "tensor '{}': the stored chunks of {} hold {} of the {} elements registered",
           t.name, m.name, copied, *element_count(t.shape));
    stage.tensors.emplace_back(&t, at);
    stage.missing.erase(t.order);
    supplied = true;
  }
  // States: this rank's own, from the same rank of the writing job.
  for (const auto& st : states_) {
    if (!wanted(st.order, st.kinds)) continue;
    const StateRecord* record = nullptr;
    for (const auto& r : m.states)
      if (r.name == st.name && same_rank_exists && shard_rank(r.shard) == static_cast<uint32_t>(rank)) record = &r;
    if (record == nullptr) {
      stage.missing[st.order] = m.world_size > 0 && !same_rank_exists
                                    ? fmt::format("the job that wrote {} had {} ranks", m.name, m.world_size)
                                    : fmt::format("not in {}", m.name);
      continue;
    }
    std::vector<uint8_t> bytes(static_cast<size_t>(record->size));
    store_->read(key_of(m.name) + "/" + m.shards[record->shard].key, record->offset, bytes.data(), bytes.size());
    if (checksums_enforced() && xxh3(bytes.data(), bytes.size()) != record->xxh3)
      fail(FRUGAL_ERR_DATA_CORRUPTED, "state '{}' of {} fails its checksum", st.name, m.name);
    stage.imports.push_back({&st, std::move(bytes), source});
    stage.missing.erase(st.order);
    supplied = true;
  }
  if (source && supplied) stage.source = found;
}

Engine::SlicedStage Engine::stage_sliced(const std::string& chosen, const std::string& source_name) {
  SlicedStage stage;
  std::lock_guard lock(mutex_);
  // The lock is released for the agreement that follows; the stage points
  // into the registrations, which must not change meanwhile.
  stage.registrations = std::tuple(tensors_.size(), states_.size(), next_order_);
  std::map<const Registered*, uint64_t> positions;
  uint64_t position = 0;
  for (const auto& t : tensors_) {
    positions[&t] = position;
    position += t.bytes;
  }
  try {
    const auto id = parse_checkpoint_name(chosen);
    if (!id) fail(FRUGAL_ERR_DATA_CORRUPTED, "rank 0 proposed '{}', not a checkpoint name", chosen);
    stage.found = examine(*id, false);
    if (stage.found.status != FRUGAL_CKPT_VALID) fail(FRUGAL_ERR_DATA_CORRUPTED, "{}", stage.found.reason);
    ensure_snapshot_locked();
    stage_from(stage.found, false, stage, positions);
  } catch (const Error& e) {
    stage.checkpoint_problem = e.what();
    return stage;
  }
  // Only a rank that misses full-only state reads the full checkpoint.
  const bool needs_source =
      std::any_of(tensors_.begin(), tensors_.end(),
                  [&](const Registered& t) { return full_only(t.kinds) && stage.missing.count(t.order) != 0; }) ||
      std::any_of(states_.begin(), states_.end(),
                  [&](const RegisteredState& st) { return full_only(st.kinds) && stage.missing.count(st.order) != 0; });
  if (source_name.empty() || stage.found.manifest.kind != FRUGAL_CKPT_HEARTBEAT || !needs_source) return stage;
  try {
    const auto id = parse_checkpoint_name(source_name);
    if (!id || id->kind != FRUGAL_CKPT_FULL)
      fail(FRUGAL_ERR_DATA_CORRUPTED, "rank 0 proposed '{}', not a full checkpoint", source_name);
    const Found source = examine(*id, false);
    if (source.status != FRUGAL_CKPT_VALID) fail(FRUGAL_ERR_DATA_CORRUPTED, "{}", source.reason);
    stage_from(source, true, stage, positions);
  } catch (const Error& e) {
    // The stage is dropped: the ranks stage again with an older full one.
    stage.source_problem = e.what();
  }
  return stage;
}

RestoreOutcome Engine::restore_sliced(const char* name, uint32_t kinds, void* metadata, size_t capacity,
                                      size_t* metadata_size) {
  // Called with the engine reserved (restore()). With a comm every rank
  // gets here in the same call.
  const int32_t rank = group_ ? group_->rank() : 0;
  const bool proposer = rank == 0;
  if (kinds == 0) kinds = FRUGAL_CKPT_ALL_KINDS;
  // Rank 0's candidates, newest first, and the full checkpoints that may
  // supply a heartbeat's full-only state. Its failure to list is not
  // thrown until the others know there is nothing to restore.
  std::vector<std::string> candidates;
  std::vector<CheckpointId> fulls;
  std::optional<Error> listing_failed;
  if (proposer) {
    try {
      if (name != nullptr && !parse_checkpoint_name(name))
        fail(FRUGAL_ERR_INVALID_ARGUMENT, "'{}' is not a checkpoint name (expected e.g. full-000000001200-00000007)",
             name);
      if (name != nullptr) candidates.emplace_back(name);
      for (const auto& found : list(false)) {
        if (found.status != FRUGAL_CKPT_VALID) continue;
        if (found.id.kind == FRUGAL_CKPT_FULL) fulls.push_back(found.id);
        if (name == nullptr && (static_cast<uint32_t>(found.id.kind) & kinds) != 0) candidates.push_back(found.id.name);
      }
    } catch (const Error& e) {
      listing_failed = e;
    }
  }
  // Rank 0's proposal of the full checkpoint for heartbeat `chosen`: the
  // `skip`-th newest written before it ("" when none is left).
  auto full_for = [&](const std::string& chosen, size_t skip) -> std::string {
    const auto id = parse_checkpoint_name(chosen);
    if (!proposer || !id || id->kind != FRUGAL_CKPT_HEARTBEAT) return {};
    for (const auto& full : fulls)
      if (full.sequence < id->sequence && skip-- == 0) return full.name;
    return {};
  };

  std::string skipped;
  for (size_t attempt = 0;; ++attempt) {
    std::string chosen = proposer && attempt < candidates.size() ? candidates[attempt] : std::string();
    if (group_) chosen = group_->caller().broadcast_text(chosen);
    if (chosen.empty()) {
      if (listing_failed) throw *listing_failed;
      fail(name != nullptr ? FRUGAL_ERR_INVALID_ARGUMENT : FRUGAL_ERR_NOT_FOUND,
           "no checkpoint under '{}' in {} that every rank could restore{}{}", options_.prefix, store_->label(),
           skipped.empty() ? "" : "; skipped: ", skipped);
    }
    // A heartbeat's full-only tensors and states come from the newest full
    // checkpoint before it that every rank can read; one that some rank
    // cannot is skipped for the next older, the heartbeat kept.
    std::string full_skipped;
    for (size_t full_attempt = 0;; ++full_attempt) {
      std::string source_name = full_for(chosen, full_attempt);
      if (group_) source_name = group_->caller().broadcast_text(source_name);
      auto staged = stage_sliced(chosen, source_name);
      // Every rank's verdict: 'C' its problem with the checkpoint, 'S' with
      // the full source, nothing when it staged all it needs.
      std::vector<std::vector<uint8_t>> verdicts{staged.verdict()};
      if (group_) verdicts = group_->caller().all_gather_bytes(verdicts.front());
      std::string why_checkpoint, why_source;
      for (size_t r = 0; r < verdicts.size(); ++r) {
        if (verdicts[r].empty()) continue;
        std::string& why = verdicts[r].front() == 'C' ? why_checkpoint : why_source;
        why += fmt::format("{}rank {}: {}", why.empty() ? "" : "; ", r,
                           std::string(verdicts[r].begin() + 1, verdicts[r].end()));
      }
      if (!why_checkpoint.empty()) {
        if (name != nullptr)
          fail(FRUGAL_ERR_DATA_CORRUPTED, "checkpoint {} cannot be restored: {}", chosen, why_checkpoint);
        skipped += fmt::format("{}{} ({})", skipped.empty() ? "" : "; ", chosen, why_checkpoint);
        break;  // the next candidate
      }
      if (!why_source.empty()) {
        full_skipped += fmt::format("{}{} ({})", full_skipped.empty() ? "" : "; ", source_name, why_source);
        continue;  // the next older full checkpoint
      }
      return write_staged(std::move(staged), skipped, full_skipped, metadata, capacity, metadata_size);
    }
  }
}

RestoreOutcome Engine::write_staged(SlicedStage stage, const std::string& skipped, const std::string& full_skipped,
                                    void* metadata, size_t capacity, size_t* metadata_size) {
  // Every rank staged the same checkpoint (and full source): now write.
  const int32_t rank = group_ ? group_->rank() : 0;
  std::lock_guard lock(mutex_);
  if (std::tuple(tensors_.size(), states_.size(), next_order_) != stage.registrations)
    fail(FRUGAL_ERR_FAILED_PRECONDITION,
         "tensors or states were registered or unregistered during frugal_ckpt_restore on rank {}; nothing was "
         "written on this rank",
         rank);
  const Manifest& m = stage.found.manifest;
  // This rank's own metadata when the job that wrote it had as many
  // ranks; otherwise rank 0's, the job's (frugal_ckpt_restore).
  const uint32_t world = group_ ? static_cast<uint32_t>(group_->size()) : 1;
  const std::vector<uint8_t>& own = m.world_size == world ? m.metadata_of(static_cast<uint32_t>(rank)) : m.metadata;
  if (own.size() > capacity) {
    *metadata_size = own.size();
    fail(FRUGAL_ERR_OUT_OF_RANGE, "checkpoint {} carries {} metadata bytes for rank {}; the buffer holds {}", m.name,
         own.size(), rank, capacity);
  }
  if (!skipped.empty())
    store_->log(FRUGAL_LOG_WARN, fmt::format("recovering from {}; skipped newer: {}", m.name, skipped));
  if (!full_skipped.empty())
    store_->log(FRUGAL_LOG_WARN,
                fmt::format("full-only state for {}: skipped full checkpoints {}", m.name, full_skipped));
  {
    DiscardCopiesOnThrow discard_on_throw(copier_);
    for (const auto& [t, at] : stage.tensors) {
      auto* dst = static_cast<uint8_t*>(t->view.data) + t->view.byte_offset;
      if (t->bytes > 0) copier_.from_host(dst, snapshot_.data() + at, static_cast<size_t>(t->bytes), t->view.device);
    }
    copier_.finish();
  }
  // In registration order, as frugal_ckpt_restore promises.
  std::sort(stage.imports.begin(), stage.imports.end(),
            [](const auto& a, const auto& b) { return a.state->order < b.state->order; });
  for (const auto& import : stage.imports)
    import_state(*import.state, import.bytes.data(), import.bytes.size(),
                 import.from_source ? stage.source->id.name : m.name);
  if (!own.empty()) std::memcpy(metadata, own.data(), own.size());
  *metadata_size = own.size();
  remember_metadata_locked(m);
  RestoreOutcome out;
  out.found = stage.found;
  if (m.kind == FRUGAL_CKPT_FULL)
    out.full_source = m.name;
  else if (stage.source)
    out.full_source = stage.source->id.name;
  std::vector<std::string> logged;
  for (const auto& [order, why_missing] : stage.missing) {
    for (const auto& t : tensors_)
      if (t.order == order) out.not_restored.push_back(t.name);
    for (const auto& st : states_)
      if (st.order == order) out.not_restored.push_back(st.name);
    logged.push_back(fmt::format("'{}' ({})", out.not_restored.back(), why_missing));
  }
  if (!logged.empty())
    store_->log(FRUGAL_LOG_WARN, fmt::format("restored {}; registered tensors and states left as they were: {}", m.name,
                                             fmt::join(logged, "; ")));
  restore_report_ = out.not_restored;
  return out;
}

}  // namespace frugal::ckpt
