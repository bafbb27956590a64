// The checkpoint engine: registered state, one reusable snapshot buffer,
// and a background thread that persists one checkpoint at a time through a
// Store with the commit protocol (shards first, manifest last).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "ckpt/device_copy.hpp"
#include "ckpt/job_group.hpp"
#include "ckpt/manifest.hpp"
#include "ckpt/names.hpp"
#include "ckpt/writer_claim.hpp"
#include "error.hpp"
#include "frugal/checkpoint.h"
#include "store.hpp"

namespace frugal::ckpt {

struct EngineOptions {
  int64_t keep_heartbeats = 2;
  int64_t keep_full = 2;
  uint64_t shard_bytes = uint64_t{256} << 20;
  std::string prefix;  // "" or "a/b/" (ends with '/')
  // "restore": "verified" (every byte checked before any registered byte
  // is written) or "in_place" (CPU tensors read straight into their
  // memory, each shard checked as it arrives: no staging copy).
  bool restore_in_place = false;
};

// One checkpoint as found in the store.
struct Found {
  CheckpointId id;
  int32_t status = FRUGAL_CKPT_INCOMPLETE;
  std::string reason;
  bool manifest_read = false;  // the manifest decoded (status may still be CORRUPT from a shard)
  Manifest manifest;           // meaningful when manifest_read
};

struct SaveOutcome {
  std::string name;
  bool skipped = false;
  uint64_t bytes = 0;
  double wait_seconds = 0;
  double snapshot_seconds = 0;
};

// What a restore wrote: the checkpoint, where its full-only state came from
// and which registered tensors and states it left as they were.
struct RestoreOutcome {
  Found found;
  std::string full_source;                // "" when no full checkpoint supplied state
  std::vector<std::string> not_restored;  // registered tensors and states not written, in registration order
};

struct PersistOutcome {
  std::string name;
  uint64_t bytes = 0;
  double persist_seconds = 0;
};

class Engine {
 public:
  Engine(std::shared_ptr<Store> store, const frugal_options* options);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  void register_tensor(const std::string& name, const frugal_tensor& view, uint32_t kinds);
  // This rank's slice of a global tensor (an engine with a comm only).
  void register_slice(const std::string& name, const frugal_tensor& view, const frugal_ckpt_slice& slice,
                      uint32_t kinds);
  // Host state saved through `fns` (frugal_ckpt_register_state); the
  // functions are called only by save() and restore(), under the lock.
  void register_state(const std::string& name, const frugal_ckpt_state_fns& fns, uint32_t kinds);
  // Removes the tensor or the state `name`.
  void unregister(const std::string& name);

  // Snapshot now, persist in the background. `deadline` (emergency saves)
  // bounds the wait for a previous persist; nullopt waits as long as needed.
  SaveOutcome save(const frugal_ckpt_save_args& args, bool emergency,
                   std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);

  // With a comm, collective: true on every rank when any rank had a
  // preemption notice, which is then recorded on all; without, this
  // process's notice (frugal_ckpt_preemption_agree).
  bool agree_on_preemption();

  // Blocks until idle; throws the last persist's error once.
  PersistOutcome wait();
  // The outcome of the persist of checkpoint `name` (error empty = committed),
  // waiting for it until `deadline` (nullopt: as long as it takes); nullopt
  // when the deadline passed first.
  struct JobOutcome {
    std::string name;
    std::optional<Error> error;
  };
  std::optional<JobOutcome> wait_for(const std::string& name,
                                     std::optional<std::chrono::steady_clock::time_point> deadline);

  std::vector<Found> list(bool deep) const;  // newest (highest sequence, then name) first
  // deep: every shard read and checked too, not only the manifest.
  Found verify(const std::string& name, bool deep = true) const;  // throws NOT_FOUND
  Found latest(uint32_t kinds) const;                             // throws NOT_FOUND with the reasons
  // *metadata_size (not NULL) is set on success and with OUT_OF_RANGE (buffer too small).
  // A heartbeat's full-only tensors come from the newest valid full
  // checkpoint written before it (see frugal_ckpt_restore).
  RestoreOutcome restore(const char* name, uint32_t kinds, void* metadata, size_t capacity, size_t* metadata_size);
  // The registered tensors and states the last successful restore did not write.
  std::vector<std::string> restore_report() const {
    std::lock_guard lock(mutex_);
    return restore_report_;
  }
  // The metadata rank `rank` of the writing job saved in the checkpoint the
  // last successful restore restored (frugal_ckpt_restored_metadata).
  std::vector<uint8_t> restored_metadata(uint32_t rank) const;
  uint32_t gc();
  std::string inspect_json(const std::string& name) const;

 private:
  struct Registered {
    std::string name;
    frugal_tensor view{};
    std::vector<int64_t> shape;
    uint64_t bytes = 0;
    uint32_t kinds = 0;
    uint64_t order = 0;  // registration order, shared with the states
    // A slice of a global tensor (register_slice); otherwise the whole
    // tensor, rank-local in an engine with a comm.
    bool sliced = false;
    bool replicated = false;
    std::vector<int64_t> global_shape;  // sliced only
    std::vector<int64_t> offsets;       // sliced only
  };
  struct RegisteredState {
    std::string name;
    frugal_ckpt_state_fns fns{};
    uint32_t kinds = 0;
    uint64_t order = 0;
  };
  // Tensor shards start on this boundary of the snapshot buffer (the
  // buffer itself is 2 MiB aligned), on save and on restore, so the store
  // can move them with direct I/O: O_DIRECT needs the memory address
  // aligned to the device's logical block. The snapshot buffer holds one
  // such pad per registered tensor, a bound on the number of shards.
  static constexpr uint64_t kShardAlign = 4096;
  static constexpr uint64_t align_up(uint64_t value, uint64_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
  }
  struct ShardPlan {
    uint64_t begin = 0;  // offset in the snapshot buffer, or in state_snapshot_ for a state shard
    uint64_t size = 0;
    bool states = false;  // holds states (exported bytes), not tensors
  };
  struct Job {
    Manifest manifest;  // filled except shard checksums
    std::vector<ShardPlan> shards;
    // An emergency save's deadline: with a comm, a rank whose shards are
    // not durable by then makes the checkpoint fail on every rank.
    std::optional<std::chrono::steady_clock::time_point> deadline;
  };

  // Validated copy of a registration (shared by register_tensor and
  // register_slice), not yet inserted.
  Registered make_registered(const std::string& name, const frugal_tensor& view, uint32_t kinds) const;
  void insert_registered(Registered r);
  // With a comm: every rank saves the same kind at args.step, and is
  // `ready` (an emergency save: its previous persist ended before the
  // deadline, which bounds the agreement too), and the job's metadata
  // (rank 0's plus every rank's that differs) fits a checkpoint; a
  // preemption notice on any rank is recorded on all; returns the
  // sequence rank 0 (the job's writer) assigns. Called with the lock
  // released (collective).
  uint64_t agree_on_save(int32_t kind, const frugal_ckpt_save_args& args, uint64_t sequence, bool ready,
                         std::optional<std::chrono::steady_clock::time_point> deadline);
  // Writes the job's shards (two writers), filling their sizes and
  // checksums; with a comm also each chunk's block checksums.
  void write_shards(Job& job, const std::string& base);
  // With a comm: the ranks exchange their records once their shards are
  // durable and rank 0 commits the merged manifest (or no rank does).
  uint64_t persist_sharded(Job& job);
  // Removes what this rank wrote of `checkpoint` (with a comm: its own
  // shards; without: the whole checkpoint).
  void remove_own(const std::string& checkpoint) const;
  // Keeps the metadata of every rank of `m`, the checkpoint just restored.
  void remember_metadata_locked(const Manifest& m);
  // Restore of a sharded (format 3) checkpoint, or any restore of an
  // engine with a comm (engine_sliced_restore.cpp).
  RestoreOutcome restore_sliced(const char* name, uint32_t kinds, void* metadata, size_t capacity,
                                size_t* metadata_size);
  // What one rank read and verified for a sliced restore (defined in
  // engine_sliced_restore.cpp).
  struct SlicedStage;
  // Reads and verifies into the snapshot buffer all this rank needs of
  // checkpoint `chosen`, and of the full checkpoint `source` ("" for none)
  // a heartbeat's full-only state; writes nothing registered.
  SlicedStage stage_sliced(const std::string& chosen, const std::string& source);
  // Stages the registrations the checkpoint `found` holds for this rank
  // (with `source`: a full checkpoint supplying only the full-only ones
  // the stage still misses).
  void stage_from(const Found& found, bool source, SlicedStage& stage,
                  const std::map<const Registered*, uint64_t>& positions);
  // Writes a stage every rank agreed on into the registrations.
  RestoreOutcome write_staged(SlicedStage stage, const std::string& skipped, const std::string& full_skipped,
                              void* metadata, size_t capacity, size_t* metadata_size);

  std::string key_of(const std::string& checkpoint) const { return options_.prefix + checkpoint; }
  // Refuses `name` when a tensor or a state holds it (one namespace).
  void check_name_free_locked(const std::string& name) const;
  // Exports every state of `kind` into state_snapshot_ (records with
  // offsets into it; shards and checksums are left to the caller).
  std::vector<StateRecord> export_states_locked(int32_t kind);
  // Appends one state's export to state_snapshot_; returns its size.
  uint64_t export_state(const RegisteredState& state);
  void wait_idle_locked(std::unique_lock<std::mutex>& lock);
  struct SnapshotNeed {
    uint64_t bytes = 0;
    bool pinned = false;
  };
  SnapshotNeed snapshot_need_locked() const;
  bool snapshot_fits_locked(const SnapshotNeed& need) const;
  void ensure_snapshot_locked();
  void prepare_snapshot(std::unique_lock<std::mutex>& lock);
  void worker_loop();
  uint64_t persist(Job& job);  // returns the bytes written, manifest included
  // Holds busy_ for a caller other than the worker (gc, restore), so no
  // persist or retention runs meanwhile.
  class Reservation {
   public:
    explicit Reservation(Engine& engine);
    ~Reservation();
    Reservation(const Reservation&) = delete;
    Reservation& operator=(const Reservation&) = delete;

   private:
    Engine& engine_;
  };

  // Retention pass; runs while busy_ is held (by the worker or by gc()).
  uint32_t retention_pass(const std::string& protect);
  void remove_checkpoint(const std::string& checkpoint) const;
  Found examine(const CheckpointId& id, bool deep) const;
  Found examine_once(const CheckpointId& id, bool deep) const;
  // The newest fully verified full checkpoint older (in write order) than
  // `heartbeat`; what it skipped, and why, is appended to `skipped`.
  std::optional<Found> newest_full_before(const CheckpointId& heartbeat, std::string& skipped) const;
  // Walks the checkpoints of `kinds` (0: all) newest first, offering each
  // whose manifest is valid to `take`, until it accepts one (true); when
  // it refuses one it sets the candidate's status and reason. Throws
  // NOT_FOUND naming every checkpoint skipped and why.
  void newest_valid(uint32_t kinds, const std::function<bool(Found&)>& take) const;
  // restore() of `found` (its manifest checked, its shards not yet):
  // nullopt when a shard or state fails as it is read and `unverified`
  // is given (it gets the reason; nothing was written), else the error.
  std::optional<RestoreOutcome> restore_found(Found found, uint32_t kinds, void* metadata, size_t capacity,
                                              size_t* metadata_size, std::string* unverified);
  // DATA_CORRUPTED unless shard `key` of `m` is present with its size.
  void require_shard_size(const Manifest& m, const ShardRecord& shard, const std::string& key) const;
  // restore "in_place": the tensor shards of `m` marked in `wanted` read
  // straight into the registered tensors (`targets`, parallel to
  // m.tensors), each shard's checksum over the bytes as they arrive;
  // DATA_CORRUPTED for a shard missing, resized or failing, which leaves
  // registered tensors holding unverified bytes.
  void read_verified_in_place(const Manifest& m, const std::vector<bool>& wanted,
                              const std::vector<const Registered*>& targets) const;
  // Where the shards of `m` marked in `wanted` begin in one buffer, back
  // to back (each on a kShardAlign boundary when `pad`); `end` is out.
  static std::vector<uint64_t> shard_layout(const Manifest& m, const std::vector<bool>& wanted, bool pad,
                                            uint64_t* end);
  // Reads the shards of `m` marked in `wanted` into `dst` as shard_layout
  // places them, checking each one's size and checksum (DATA_CORRUPTED
  // otherwise); returns where each shard begins in `dst`.
  std::vector<uint64_t> read_verified_shards(const Manifest& m, const std::vector<bool>& wanted, uint8_t* dst,
                                             bool pad = false) const;
  // read_verified_shards into `dst`, resized to hold the wanted shards.
  std::vector<uint64_t> read_state_shards(const Manifest& m, const std::vector<bool>& wanted,
                                          std::vector<uint8_t>& dst) const;
  // Calls the state's import_state; a refusal names `checkpoint` and the state.
  void import_state(const RegisteredState& state, const uint8_t* data, uint64_t size, const std::string& checkpoint);

  // The highest sequence of any checkpoint (complete or not) under the prefix.
  uint64_t highest_sequence() const;
  // Calls fn for each key under the prefix that belongs to a checkpoint
  // (listing only names that start like one: see kCheckpointNameStarts).
  void for_each_checkpoint_key(const std::function<void(const CheckpointId&)>& fn) const;

  std::shared_ptr<Store> store_;
  EngineOptions options_;
  // The job's ranks, with a `comm` option; nullptr for one process.
  std::unique_ptr<JobGroup> group_;
  // Claimed before the first save; used only while busy_ is ours (by save
  // before it sets busy_, by the worker, by gc), so it needs no lock.
  WriterClaim claim_;

  mutable std::mutex mutex_;  // guards everything below
  std::condition_variable idle_cv_, job_cv_;
  std::vector<Registered> tensors_;
  std::vector<RegisteredState> states_;
  uint64_t next_order_ = 0;  // registration order of tensors and states
  HostBuffer snapshot_;
  // The states of the checkpoint in flight, as exported; like snapshot_,
  // written only by save (with busy_ clear) and read by the worker.
  std::vector<uint8_t> state_snapshot_;
  std::vector<uint8_t> metadata_;
  DeviceCopier copier_;
  uint64_t next_sequence_ = 1;
  std::optional<Job> job_;          // handed to the worker
  bool busy_ = false;               // a job is queued or persisting, or the buffer is being replaced
  bool prepare_requested_ = false;  // registrations changed the needed snapshot size
  bool stop_ = false;
  std::string in_flight_;
  std::optional<PersistOutcome> last_persist_;
  std::optional<Error> last_error_;          // unreported persist failure
  std::deque<JobOutcome> outcomes_;          // recent persist outcomes (bounded), for SAVE_WAIT and emergencies
  std::set<std::string> verified_;           // checkpoints whose shards verified (or that we wrote)
  std::vector<std::string> restore_report_;  // tensors the last successful restore did not write
  // The last successful restore's checkpoint: only its name, world_size,
  // metadata and rank_metadata.
  std::optional<Manifest> restored_metadata_;
  std::thread worker_;
};

}  // namespace frugal::ckpt
