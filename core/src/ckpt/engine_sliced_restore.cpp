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

// A registered tensor's place in the checkpoint being restored.
struct TensorSource {
  const TensorRecord* rank_local = nullptr;  // this rank's own copy
  std::vector<const TensorRecord*> chunks;   // chunks of the global tensor
};

}  // namespace

RestoreOutcome Engine::restore_sliced(const char* name, uint32_t kinds, void* metadata, size_t capacity,
                                      size_t* metadata_size) {
  // Called with the engine reserved (restore()). With a comm every rank
  // gets here in the same call.
  const int32_t rank = group_ ? group_->rank() : 0;
  const bool proposer = rank == 0;
  if (kinds == 0) kinds = FRUGAL_CKPT_ALL_KINDS;
  // Rank 0's candidates, newest first. Its failure to list is not thrown
  // until the others know there is nothing to restore.
  std::vector<std::string> candidates;
  std::optional<Error> listing_failed;
  if (proposer) {
    try {
      if (name != nullptr) {
        if (!parse_checkpoint_name(name))
          fail(FRUGAL_ERR_INVALID_ARGUMENT, "'{}' is not a checkpoint name (expected e.g. full-000000001200-00000007)",
               name);
        candidates.emplace_back(name);
      } else {
        for (const auto& found : list(false))
          if ((static_cast<uint32_t>(found.id.kind) & kinds) != 0 && found.status == FRUGAL_CKPT_VALID)
            candidates.push_back(found.id.name);
      }
    } catch (const Error& e) {
      listing_failed = e;
    }
  }
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

    // Stage: read and verify everything this rank needs, write nothing.
    std::string problem;
    Found found;
    std::vector<std::pair<const Registered*, uint64_t>> staged;  // tensor, where in snapshot_
    std::vector<std::pair<const RegisteredState*, std::vector<uint8_t>>> imports;
    std::vector<std::pair<uint64_t, std::string>> missing;  // registration order, why
    std::unique_lock lock(mutex_);
    // The lock is released for the agreement below; `staged` and `imports`
    // point into the registrations, which must not change meanwhile.
    const auto registrations = std::tuple(tensors_.size(), states_.size(), next_order_);
    try {
      const auto id = parse_checkpoint_name(chosen);
      if (!id) fail(FRUGAL_ERR_DATA_CORRUPTED, "rank 0 proposed '{}', not a checkpoint name", chosen);
      found = examine(*id, false);
      if (found.status != FRUGAL_CKPT_VALID) fail(FRUGAL_ERR_DATA_CORRUPTED, "{}", found.reason);
      const Manifest& m = found.manifest;
      ensure_snapshot_locked();
      // The writing job's rank this rank restores rank-local state from.
      const bool same_rank_exists = m.world_size == 0 ? rank == 0 : static_cast<uint32_t>(rank) < m.world_size;
      auto shard_rank = [&](uint32_t shard) { return m.world_size == 0 ? 0U : m.shards[shard].rank; };
      std::map<std::string, TensorSource> sources;
      for (const auto& t : m.tensors) {
        auto& source = sources[t.name];
        if (!t.rank_local)
          source.chunks.push_back(&t);
        else if (same_rank_exists && shard_rank(t.shard) == static_cast<uint32_t>(rank))
          source.rank_local = &t;
      }
      // Shards of a manifest of one process carry no block checksums: each
      // is read whole, once, and checked against its own checksum.
      std::map<uint32_t, std::vector<uint8_t>> whole_shards;
      auto whole_shard = [&](uint32_t shard) -> const std::vector<uint8_t>& {
        auto [it, fresh] = whole_shards.try_emplace(shard);
        if (fresh) {
          std::vector<bool> wanted(m.shards.size(), false);
          wanted[shard] = true;
          it->second.resize(static_cast<size_t>(m.shards[shard].size));
          read_verified_shards(m, wanted, it->second.data());
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
                 "tensor '{}': block {} of the chunk at [{}] in shard '{}' fails its checksum", t.name, b,
                 fmt::join(t.offsets, ", "), m.shards[t.shard].key);
        }
        return range.data();
      };
      uint64_t position = 0;
      for (const auto& t : tensors_) {
        const uint64_t at = position;
        position += t.bytes;
        const auto it = sources.find(t.name);
        if (it == sources.end() || (it->second.chunks.empty() && it->second.rank_local == nullptr)) {
          missing.emplace_back(t.order, it != sources.end() && !same_rank_exists
                                            ? fmt::format("the job that wrote {} had {} ranks; no rank {} among them",
                                                          m.name, m.world_size, rank)
                                            : fmt::format("not in {}", m.name));
          continue;
        }
        const size_t element = static_cast<size_t>(find_dtype(t.view.dtype)->bits / 8);
        uint8_t* dst = snapshot_.data() + at;
        if (it->second.rank_local != nullptr && !t.sliced) {
          const TensorRecord& r = *it->second.rank_local;
          if (r.dtype != t.view.dtype || r.shape != t.shape)
            fail(FRUGAL_ERR_FAILED_PRECONDITION, "tensor '{}' was saved as {} [{}] but is registered as {} [{}]",
                 t.name, frugal_dtype_name(r.dtype), fmt::join(r.shape, ", "), frugal_dtype_name(t.view.dtype),
                 fmt::join(t.shape, ", "));
          uint64_t first = 0;
          const uint8_t* bytes = read_range(r, 0, r.bytes, &first);
          if (r.bytes > 0) std::memcpy(dst, bytes, static_cast<size_t>(r.bytes));
          staged.emplace_back(&t, at);
          continue;
        }
        if (it->second.chunks.empty()) {
          missing.emplace_back(t.order, fmt::format("{} holds '{}' only as rank-local tensors", m.name, t.name));
          continue;
        }
        const TensorRecord& any = *it->second.chunks.front();
        const std::vector<int64_t>& global = m.world_size == 0 ? any.shape : any.global_shape;
        const Box want{t.sliced ? t.offsets : std::vector<int64_t>(t.shape.size(), 0), t.shape};
        if (any.dtype != t.view.dtype || global != (t.sliced ? t.global_shape : t.shape))
          fail(FRUGAL_ERR_FAILED_PRECONDITION, "tensor '{}' was saved as {} [{}] but is registered as {} [{}] ({})",
               t.name, frugal_dtype_name(any.dtype), fmt::join(global, ", "), frugal_dtype_name(t.view.dtype),
               fmt::join(t.sliced ? t.global_shape : t.shape, ", "), t.sliced ? "a slice of it" : "the whole tensor");
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
          fail(FRUGAL_ERR_DATA_CORRUPTED, "tensor '{}': the stored chunks hold {} of the {} elements registered",
               t.name, copied, *element_count(t.shape));
        staged.emplace_back(&t, at);
      }
      // States: this rank's own, from the same rank of the writing job.
      for (const auto& st : states_) {
        const StateRecord* record = nullptr;
        for (const auto& r : m.states)
          if (r.name == st.name && same_rank_exists && shard_rank(r.shard) == static_cast<uint32_t>(rank)) record = &r;
        if (record == nullptr) {
          missing.emplace_back(st.order, m.world_size > 0 && !same_rank_exists
                                             ? fmt::format("the job that wrote {} had {} ranks", m.name, m.world_size)
                                             : fmt::format("not in {}", m.name));
          continue;
        }
        std::vector<uint8_t> bytes(static_cast<size_t>(record->size));
        store_->read(key_of(m.name) + "/" + m.shards[record->shard].key, record->offset, bytes.data(), bytes.size());
        if (checksums_enforced() && xxh3(bytes.data(), bytes.size()) != record->xxh3)
          fail(FRUGAL_ERR_DATA_CORRUPTED, "state '{}' fails its checksum", st.name);
        imports.emplace_back(&st, std::move(bytes));
      }
    } catch (const Error& e) {
      problem = e.what();
    }
    lock.unlock();
    bool everyone = problem.empty();
    std::string why = problem;
    if (group_) {
      const auto reasons = group_->caller().all_gather_bytes(std::vector<uint8_t>(problem.begin(), problem.end()));
      why.clear();
      for (size_t r = 0; r < reasons.size(); ++r)
        if (!reasons[r].empty())
          why += fmt::format("{}rank {}: {}", why.empty() ? "" : "; ", r,
                             std::string(reasons[r].begin(), reasons[r].end()));
      everyone = why.empty();
    }
    if (!everyone) {
      if (name != nullptr) fail(FRUGAL_ERR_DATA_CORRUPTED, "checkpoint {} cannot be restored: {}", chosen, why);
      skipped += fmt::format("{}{} ({})", skipped.empty() ? "" : "; ", chosen, why);
      continue;
    }

    // Every rank staged the same checkpoint: now write.
    lock.lock();
    if (std::tuple(tensors_.size(), states_.size(), next_order_) != registrations)
      fail(FRUGAL_ERR_FAILED_PRECONDITION,
           "tensors or states were registered or unregistered during frugal_ckpt_restore on rank {}; nothing was "
           "written on this rank",
           rank);
    const Manifest& m = found.manifest;
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
    {
      DiscardCopiesOnThrow discard_on_throw(copier_);
      for (const auto& [t, at] : staged) {
        auto* dst = static_cast<uint8_t*>(t->view.data) + t->view.byte_offset;
        if (t->bytes > 0) copier_.from_host(dst, snapshot_.data() + at, static_cast<size_t>(t->bytes), t->view.device);
      }
      copier_.finish();
    }
    for (const auto& [st, bytes] : imports) import_state(*st, bytes.data(), bytes.size(), m.name);
    if (!own.empty()) std::memcpy(metadata, own.data(), own.size());
    *metadata_size = own.size();
    remember_metadata_locked(m);
    RestoreOutcome out;
    out.found = found;
    if (m.kind == FRUGAL_CKPT_FULL) out.full_source = m.name;
    std::sort(missing.begin(), missing.end());
    std::vector<std::string> logged;
    for (const auto& [order, why_missing] : missing) {
      for (const auto& t : tensors_)
        if (t.order == order) out.not_restored.push_back(t.name);
      for (const auto& st : states_)
        if (st.order == order) out.not_restored.push_back(st.name);
      logged.push_back(fmt::format("'{}' ({})", out.not_restored.back(), why_missing));
    }
    if (!logged.empty())
      store_->log(FRUGAL_LOG_WARN, fmt::format("restored {}; registered tensors and states left as they were: {}",
                                               m.name, fmt::join(logged, "; ")));
    restore_report_ = out.not_restored;
    return out;
  }
}

}  // namespace frugal::ckpt
