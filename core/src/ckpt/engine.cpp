#include "ckpt/engine.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <functional>
#include <future>
#include <map>
#include <set>
#include <tuple>

#include "ckpt/chunk_box.hpp"
#include "ckpt/shard_verify.hpp"
#include "ckpt/shard_workers.hpp"
#include "compact_tensor.hpp"
#include "dtype.hpp"
#include "frugal/managed_tensor.h"
#include "frugal/options.h"
#include "frugal/version.h"
#include "hash.hpp"

namespace frugal::ckpt {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kCommittedMemory = 64;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

void check(frugal_error* error) { rethrow_if_error(error, "checkpoint engine options: "); }

EngineOptions read_options(const frugal_options* options) {
  static const char* const kKnown[] = {"keep_heartbeats", "keep_full", "shard_bytes", "prefix", "comm", "restore"};
  for (size_t i = 0; i < frugal_options_count(options); ++i) {
    const char* name = nullptr;
    int32_t type = 0;
    check(frugal_options_entry(options, i, &name, &type));
    if (std::none_of(std::begin(kKnown), std::end(kKnown), [&](const char* k) { return std::strcmp(k, name) == 0; }))
      fail(FRUGAL_ERR_INVALID_ARGUMENT,
           "checkpoint engine: unknown option '{}' (accepted: keep_heartbeats, keep_full, shard_bytes, prefix, comm, "
           "restore)",
           name);
  }
  EngineOptions out;
  int64_t shard_bytes = 0;
  const char* prefix = nullptr;
  check(frugal_options_get_int(options, "keep_heartbeats", 2, &out.keep_heartbeats));
  check(frugal_options_get_int(options, "keep_full", 2, &out.keep_full));
  check(frugal_options_get_int(options, "shard_bytes", int64_t{256} << 20, &shard_bytes));
  check(frugal_options_get_string(options, "prefix", "", &prefix));
  const char* restore = nullptr;
  check(frugal_options_get_string(options, "restore", "verified", &restore));
  if (std::strcmp(restore, "in_place") == 0)
    out.restore_in_place = true;
  else if (std::strcmp(restore, "verified") != 0)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "checkpoint engine: restore must be 'verified' or 'in_place', got '{}'", restore);
  if (out.keep_heartbeats < 1 || out.keep_full < 1)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "checkpoint engine: keep_heartbeats and keep_full must be >= 1 (got {} and {})",
         out.keep_heartbeats, out.keep_full);
  if (shard_bytes < 4096)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "checkpoint engine: shard_bytes must be >= 4096, got {}", shard_bytes);
  out.shard_bytes = static_cast<uint64_t>(shard_bytes);
  out.prefix = prefix;
  if (!out.prefix.empty()) {
    if (out.prefix.back() != '/') out.prefix += '/';
    check_store_key(out.prefix.substr(0, out.prefix.size() - 1));
  }
  return out;
}

// The name and kinds rules of every registration; `what` is "checkpoint
// tensor" or "checkpoint state".
void check_registration(const std::string& name, uint32_t kinds, const char* what) {
  if (name.empty() || name.size() > 255)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "{} name must be 1..255 bytes, got {}", what, name.size());
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '.' || c == '-' || c == '/';
    if (!ok) fail(FRUGAL_ERR_INVALID_ARGUMENT, "{} name '{}' has a character outside [A-Za-z0-9_.-/]", what, name);
  }
  if ((kinds & ~FRUGAL_CKPT_ALL_KINDS) != 0)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "{} '{}': kinds mask {:#x} has unknown bits", what, name, kinds);
}

// Shards holding states (a shard holds tensors or states, never both:
// decode_manifest refuses a mix).
std::vector<bool> state_shards(const Manifest& m) {
  std::vector<bool> out(m.shards.size(), false);
  for (const auto& st : m.states) out[st.shard] = true;
  return out;
}

// The comm option, or nullptr.
frugal_comm* comm_option(const frugal_options* options) {
  frugal_comm* comm = nullptr;
  if (options != nullptr) check(frugal_options_get_comm(options, "comm", &comm));
  return comm;
}

// Checksum blocks of the chunks of a sharded checkpoint: a restore that
// needs part of a chunk reads at most one block more on each side.
constexpr uint64_t kBlockBytes = uint64_t{1} << 20;

int64_t unix_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Engine::Engine(std::shared_ptr<Store> store, const frugal_options* options)
    : store_(std::move(store)), options_(read_options(options)), claim_(*store_, options_.prefix) {
  if (frugal_comm* comm = comm_option(options)) group_ = std::make_unique<JobGroup>(comm);
  // Nothing is written (nor the prefix claimed) until the first save: an
  // engine that only lists, verifies or restores fences no running job.
  worker_ = std::thread([this] { worker_loop(); });
}

void Engine::for_each_checkpoint_key(const std::function<void(const CheckpointId&)>& fn) const {
  for (const std::string_view start : kCheckpointNameStarts)
    store_->list(options_.prefix + std::string(start), [&](const std::string& key, uint64_t) {
      const std::string rest = key.substr(options_.prefix.size());
      if (auto id = parse_checkpoint_name(rest.substr(0, rest.find('/')))) fn(*id);
      return true;
    });
}

uint64_t Engine::highest_sequence() const {
  uint64_t highest = 0;
  for_each_checkpoint_key([&](const CheckpointId& id) { highest = std::max(highest, id.sequence); });
  return highest;
}

Engine::~Engine() {
  {
    std::unique_lock lock(mutex_);
    wait_idle_locked(lock);
    stop_ = true;
  }
  job_cv_.notify_all();
  worker_.join();
}

void Engine::wait_idle_locked(std::unique_lock<std::mutex>& lock) {
  idle_cv_.wait(lock, [&] { return !busy_; });
}

void Engine::check_name_free_locked(const std::string& name) const {
  for (const auto& existing : tensors_)
    if (existing.name == name) fail(FRUGAL_ERR_ALREADY_EXISTS, "checkpoint tensor '{}' is already registered", name);
  for (const auto& existing : states_)
    if (existing.name == name)
      fail(FRUGAL_ERR_ALREADY_EXISTS,
           "'{}' is already registered as a checkpoint state (tensors and states share "
           "one namespace)",
           name);
}

Engine::Registered Engine::make_registered(const std::string& name, const frugal_tensor& view, uint32_t kinds) const {
  check_registration(name, kinds, "checkpoint tensor");
  rethrow_if_error(frugal_tensor_validate(&view), fmt::format("checkpoint tensor '{}': ", name));
  if (!is_row_major(view))
    fail(FRUGAL_ERR_UNSUPPORTED, "checkpoint tensor '{}' is not compact row-major; register a contiguous tensor", name);
  check_device_supported(view.device, name.c_str());
  Registered r;
  r.name = name;
  r.view = view;
  r.view.struct_size = sizeof(frugal_tensor);
  r.shape.assign(view.shape, view.shape + view.ndim);
  r.view.shape = nullptr;  // owned copy below; strides are implied (row-major)
  r.view.strides = nullptr;
  r.view.quant = nullptr;
  r.view.ext = nullptr;
  uint64_t bytes = static_cast<uint64_t>(find_dtype(view.dtype)->bits / 8);
  for (const int64_t extent : r.shape)  // extents >= 0: checked by frugal_tensor_validate
    if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(extent), &bytes))
      fail(FRUGAL_ERR_INVALID_ARGUMENT, "checkpoint tensor '{}' is too large to snapshot", name);
  r.bytes = bytes;
  r.kinds = kinds == 0 ? FRUGAL_CKPT_ALL_KINDS : kinds;
  return r;
}

void Engine::insert_registered(Registered r) {
  // No wait for an in-flight persist: it works from its own copy of the
  // layout, and only the worker thread ever replaces the snapshot buffer.
  std::lock_guard lock(mutex_);
  check_name_free_locked(r.name);
  r.order = next_order_++;
  tensors_.push_back(std::move(r));
  prepare_requested_ = true;  // grow the snapshot buffer in the background
  job_cv_.notify_one();
}

void Engine::register_tensor(const std::string& name, const frugal_tensor& view, uint32_t kinds) {
  insert_registered(make_registered(name, view, kinds));
}

void Engine::register_slice(const std::string& name, const frugal_tensor& view, const frugal_ckpt_slice& slice,
                            uint32_t kinds) {
  if (!group_)
    fail(FRUGAL_ERR_FAILED_PRECONDITION,
         "frugal_ckpt_register_slice('{}'): the engine was created without a 'comm' option; register the whole "
         "tensor with frugal_ckpt_register",
         name);
  Registered r = make_registered(name, view, kinds);
  if (slice.ndim != view.ndim)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "checkpoint slice '{}': slice->ndim is {} but the view has {} dimensions", name,
         slice.ndim, view.ndim);
  if (slice.ndim > 0 && slice.global_shape == nullptr)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "checkpoint slice '{}': slice->global_shape is NULL", name);
  r.sliced = true;
  r.replicated = slice.replicated != 0;
  r.global_shape.assign(slice.global_shape, slice.global_shape + slice.ndim);
  r.offsets.assign(static_cast<size_t>(slice.ndim), 0);
  if (slice.offsets != nullptr) r.offsets.assign(slice.offsets, slice.offsets + slice.ndim);
  if (auto why = box_outside({r.offsets, r.shape}, r.global_shape); !why.empty())
    fail(FRUGAL_ERR_OUT_OF_RANGE, "checkpoint slice '{}' [{}] at [{}] of [{}] {}", name, fmt::join(r.shape, ", "),
         fmt::join(r.offsets, ", "), fmt::join(r.global_shape, ", "), why);
  if (r.replicated && r.shape != r.global_shape)
    fail(FRUGAL_ERR_INVALID_ARGUMENT,
         "checkpoint slice '{}' is replicated, so the view must be the whole tensor [{}], not [{}] at [{}]", name,
         fmt::join(r.global_shape, ", "), fmt::join(r.shape, ", "), fmt::join(r.offsets, ", "));
  insert_registered(std::move(r));
}

void Engine::register_state(const std::string& name, const frugal_ckpt_state_fns& fns, uint32_t kinds) {
  check_registration(name, kinds, "checkpoint state");
  if (fns.export_state == nullptr || fns.import_state == nullptr)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "checkpoint state '{}': fns->{} is NULL; both functions are required", name,
         fns.export_state == nullptr ? "export_state" : "import_state");
  RegisteredState r{name, fns, kinds == 0 ? FRUGAL_CKPT_ALL_KINDS : kinds, 0};
  std::lock_guard lock(mutex_);
  check_name_free_locked(name);
  r.order = next_order_++;
  states_.push_back(std::move(r));
}

void Engine::unregister(const std::string& name) {
  // Under the lock: once this returns, no save or restore calls the
  // state's functions again (both call them holding the lock).
  std::lock_guard lock(mutex_);
  auto tensor = std::find_if(tensors_.begin(), tensors_.end(), [&](const auto& t) { return t.name == name; });
  if (tensor != tensors_.end()) {
    tensors_.erase(tensor);
    return;
  }
  auto state = std::find_if(states_.begin(), states_.end(), [&](const auto& st) { return st.name == name; });
  if (state == states_.end())
    fail(FRUGAL_ERR_NOT_FOUND, "no checkpoint tensor or state named '{}' is registered", name);
  states_.erase(state);
}

Engine::SnapshotNeed Engine::snapshot_need_locked() const {
  SnapshotNeed need;
  for (const auto& t : tensors_) {
    need.bytes += t.bytes + kShardAlign;  // the tensor, and the pad before a shard it may open
    need.pinned = need.pinned || t.view.device.type == FRUGAL_DEVICE_CUDA;
  }
  return need;
}

bool Engine::snapshot_fits_locked(const SnapshotNeed& need) const {
  return snapshot_.size() >= need.bytes && (!need.pinned || snapshot_.pinned());
}

void Engine::ensure_snapshot_locked() {
  // Normally the worker has grown the buffer already (prepare_snapshot);
  // this is the fallback for a save that arrives first.
  const auto need = snapshot_need_locked();
  if (snapshot_fits_locked(need)) return;
  snapshot_ = HostBuffer();  // release first: peak memory stays one snapshot
  snapshot_ = HostBuffer(static_cast<size_t>(need.bytes), need.pinned);
}

void Engine::prepare_snapshot(std::unique_lock<std::mutex>& lock) {
  // Called by the worker with the lock held and busy_ set by it. Allocation
  // and pre-faulting happen unlocked; registrations arriving meanwhile set
  // prepare_requested_ again and are folded into the next round.
  while (prepare_requested_) {
    prepare_requested_ = false;
    const auto need = snapshot_need_locked();
    if (snapshot_fits_locked(need)) continue;
    snapshot_ = HostBuffer();
    lock.unlock();
    std::optional<HostBuffer> fresh;
    std::optional<Error> failure;
    try {
      fresh.emplace(static_cast<size_t>(need.bytes), need.pinned);
    } catch (const Error& e) {
      failure = e;  // a later save retries and reports it
    }
    lock.lock();
    if (fresh) snapshot_ = std::move(*fresh);
    if (failure) store_->log(FRUGAL_LOG_WARN, fmt::format("preparing the snapshot buffer: {}", failure->what()));
  }
}

SaveOutcome Engine::save(const frugal_ckpt_save_args& args, bool emergency, std::optional<Clock::time_point> deadline) {
  const int32_t kind = emergency ? FRUGAL_CKPT_HEARTBEAT : args.kind;
  if (kind != FRUGAL_CKPT_HEARTBEAT && kind != FRUGAL_CKPT_FULL)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "frugal_ckpt_save: kind {} is neither HEARTBEAT (1) nor FULL (2)", kind);
  if (args.metadata_size > kMaxMetadataBytes)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "frugal_ckpt_save: metadata_size {} exceeds the {} MiB limit", args.metadata_size,
         kMaxMetadataBytes >> 20);
  if (args.metadata_size > 0 && args.metadata == nullptr)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "frugal_ckpt_save: metadata is NULL but metadata_size is {}", args.metadata_size);

  SaveOutcome out;
  std::unique_lock lock(mutex_);
  // Coalesce only with a checkpoint in flight, not with a retention pass or
  // a buffer being grown. With a comm every rank skips when any is busy
  // (a checkpoint some ranks skipped could never commit); the collective
  // runs without the lock, which the background thread may need to finish
  // its own collective on another rank's behalf.
  if ((args.flags & FRUGAL_CKPT_SAVE_SKIP_IF_BUSY) != 0) {
    bool busy = !in_flight_.empty();
    if (group_) {
      lock.unlock();
      busy = group_->caller().any(busy);
      lock.lock();
    }
    if (busy) {
      out.skipped = true;
      return out;
    }
  }
  const auto wait_start = Clock::now();
  // With a comm a rank that is not ready by the deadline still joins the
  // agreement, which then refuses the save on every rank.
  bool ready = true;
  if (deadline) {
    ready = idle_cv_.wait_until(lock, *deadline, [&] { return !busy_; });
    if (!ready && !group_)
      fail(FRUGAL_ERR_DEADLINE_EXCEEDED, "the previous checkpoint was still persisting at the deadline");
  } else {
    wait_idle_locked(lock);
  }
  out.wait_seconds = seconds_since(wait_start);
  // The first save claims the prefix (continuing its write order past
  // every sequence an older writer may still use); a fenced engine saves
  // nothing more.
  // With a comm only rank 0 writes manifests, so only it claims; the others
  // take its sequence (agree_on_save).
  const bool writer = !group_ || group_->rank() == 0;
  if (writer && ready) {
    if (!claim_.claimed()) next_sequence_ = claim_.claim([&] { return highest_sequence(); });
    claim_.refuse_if_fenced("frugal_ckpt_save");
  }
  if (group_) {
    if (ready) busy_ = true;  // ours while the lock is released for the collective
    lock.unlock();
    std::optional<uint64_t> agreed;
    std::optional<Error> failure;
    try {
      agreed = agree_on_save(kind, args, next_sequence_, ready, deadline);
    } catch (const Error& e) {
      failure = e;
    }
    lock.lock();
    if (ready) {
      busy_ = false;
      idle_cv_.notify_all();
    }
    if (failure) throw *failure;
    next_sequence_ = *agreed;
  }
  ensure_snapshot_locked();

  // Snapshot: the only part the training thread waits for. States first:
  // a failing export then costs no tensor copy, and nothing is queued.
  const auto snapshot_start = Clock::now();
  std::vector<StateRecord> states = export_states_locked(kind);

  Job job;
  Manifest& m = job.manifest;
  m.kind = kind;
  m.step = args.step;
  m.sequence = next_sequence_++;
  m.name = format_checkpoint_name(kind, args.step, m.sequence);
  m.created_unix_ns = unix_now_ns();
  m.emergency = emergency;
  m.writer = "frugal " FRUGAL_VERSION_STRING;
  m.generation = claim_.generation();

  const uint32_t rank = group_ ? static_cast<uint32_t>(group_->rank()) : 0;
  if (group_) {
    m.world_size = static_cast<uint32_t>(group_->size());
    m.block_bytes = kBlockBytes;
  }
  uint64_t offset = 0;  // in the snapshot buffer, pads included
  uint64_t tensor_bytes = 0;
  DiscardCopiesOnThrow discard_on_throw(copier_);
  for (const auto& t : tensors_) {
    if ((t.kinds & static_cast<uint32_t>(kind)) == 0) continue;
    if (t.replicated && rank != 0) continue;  // written once, by rank 0
    if (job.shards.empty() || (job.shards.back().size > 0 && job.shards.back().size + t.bytes > options_.shard_bytes)) {
      offset = align_up(offset, kShardAlign);
      job.shards.push_back({offset, 0});
    }
    TensorRecord record;
    record.name = t.name;
    record.dtype = t.view.dtype;
    record.shape = t.shape;
    record.shard = static_cast<uint32_t>(job.shards.size() - 1);
    record.offset = job.shards.back().size;
    record.bytes = t.bytes;
    if (group_) {
      // A chunk of a global tensor, or (registered whole) this rank's own.
      record.rank_local = !t.sliced;
      record.global_shape = t.sliced ? t.global_shape : t.shape;
      record.offsets = t.sliced ? t.offsets : std::vector<int64_t>(t.shape.size(), 0);
    }
    if (t.bytes > 0)
      copier_.to_host(snapshot_.data() + offset, static_cast<const uint8_t*>(t.view.data) + t.view.byte_offset,
                      static_cast<size_t>(t.bytes), t.view.device);
    job.shards.back().size += t.bytes;
    offset += t.bytes;
    tensor_bytes += t.bytes;
    m.tensors.push_back(std::move(record));
  }
  copier_.finish();
  m.metadata.assign(static_cast<const uint8_t*>(args.metadata),
                    static_cast<const uint8_t*>(args.metadata) + args.metadata_size);
  out.snapshot_seconds = seconds_since(snapshot_start);
  // States go after the tensors, packed the same way into shards of their
  // own; their checksums are taken by the worker.
  uint64_t state_offset = 0;
  for (size_t i = 0; i < states.size(); ++i) {
    StateRecord& st = states[i];
    // The first state opens a shard (never sharing a tensor shard).
    if (i == 0 || (job.shards.back().size > 0 && job.shards.back().size + st.size > options_.shard_bytes))
      job.shards.push_back({state_offset, 0, true});
    st.shard = static_cast<uint32_t>(job.shards.size() - 1);
    st.offset = job.shards.back().size;
    job.shards.back().size += st.size;
    state_offset += st.size;
  }
  m.states = std::move(states);
  for (size_t i = 0; i < job.shards.size(); ++i)
    m.shards.push_back(
        {group_ ? fmt::format("r{:05}-shard-{:05}", rank, i) : fmt::format("shard-{:05}", i), 0, 0, rank});
  out.name = m.name;
  out.bytes = tensor_bytes + state_offset + args.metadata_size;

  in_flight_ = m.name;
  if (emergency) job.deadline = deadline;
  job_ = std::move(job);
  busy_ = true;
  lock.unlock();
  job_cv_.notify_one();

  if ((args.flags & FRUGAL_CKPT_SAVE_WAIT) != 0) {
    // This job's own outcome, not whatever wait() would report: another
    // thread may be waiting too, or an older failure may be pending.
    const auto outcome = wait_for(out.name, std::nullopt);
    if (outcome && outcome->error) throw *outcome->error;
  }
  return out;
}

void Engine::worker_loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    job_cv_.wait(lock, [&] { return stop_ || job_.has_value() || (prepare_requested_ && !busy_); });
    if (!job_) {
      if (stop_) return;  // nothing queued
      busy_ = true;       // saves and restores wait while the buffer moves
      prepare_snapshot(lock);
      busy_ = false;
      idle_cv_.notify_all();
      continue;
    }
    Job job = std::move(*job_);
    job_.reset();
    lock.unlock();
    // The snapshot buffer is read without the lock: every writer of it
    // (save, register, restore) first waits for busy_ to clear.
    const auto start = Clock::now();
    std::optional<Error> failure;
    uint64_t bytes = 0;
    double persist_seconds = 0;
    try {
      bytes = persist(job);
      persist_seconds = seconds_since(start);  // up to the commit: retention is not persisting
      {
        std::lock_guard guard(mutex_);
        verified_.insert(job.manifest.name);  // we wrote and hashed it ourselves
      }
      try {
        // With a comm only rank 0, the job's writer, removes checkpoints.
        if (!group_ || group_->rank() == 0) retention_pass(job.manifest.name);
      } catch (const std::exception& e) {
        // The checkpoint is committed; a failed clean-up must not say otherwise.
        store_->log(FRUGAL_LOG_WARN, fmt::format("retention after {} failed: {}", job.manifest.name, e.what()));
      }
    } catch (const Error& e) {
      failure = e;
    } catch (const std::exception& e) {
      failure = Error(FRUGAL_ERR_INTERNAL, fmt::format("persisting {}: {}", job.manifest.name, e.what()));
    }
    lock.lock();
    if (failure) {
      store_->log(FRUGAL_LOG_ERROR, failure->what());  // also returned by the next wait()
      last_error_ = failure;
      last_persist_.reset();
    } else {
      // wait() reports the last persist: a success supersedes an older,
      // unread failure (already logged when it happened).
      last_error_.reset();
      last_persist_ = PersistOutcome{job.manifest.name, bytes, persist_seconds};
    }
    outcomes_.push_back({job.manifest.name, failure});
    if (outcomes_.size() > kCommittedMemory) outcomes_.pop_front();
    in_flight_.clear();
    busy_ = false;
    idle_cv_.notify_all();
  }
}

void Engine::write_shards(Job& job, const std::string& base) {
  Manifest& m = job.manifest;
  // Each state's own checksum, here rather than on the training thread.
  for (auto& st : m.states)
    st.xxh3 = xxh3(state_snapshot_.data() + job.shards[st.shard].begin + st.offset, static_cast<size_t>(st.size));
  // Each chunk's block checksums (sharded checkpoints), so a restore that
  // reads part of a chunk can verify just that part: hashed by the writer
  // of its shard, just before the put, so the hashing of one shard
  // overlaps the other writer's write and fsync instead of delaying them.
  std::vector<std::vector<size_t>> chunks_of(job.shards.size());  // in offset order within each shard
  if (m.world_size > 0)
    for (size_t k = 0; k < m.tensors.size(); ++k) chunks_of[m.tensors[k].shard].push_back(k);
  for (auto& chunks : chunks_of)
    std::sort(chunks.begin(), chunks.end(),
              [&](size_t a, size_t b) { return m.tensors[a].offset < m.tensors[b].offset; });
  // Shard writers (shard_workers.hpp): while one waits in fsync another
  // writes, so the disk does not idle between shards. Each shard is hashed
  // on a thread of its own while it is written: the snapshot does not
  // change during a persist, and a direct-I/O write leaves the CPU free.
  for_each_shard(job.shards.size(), [&](size_t i) {
    const uint8_t* data = (job.shards[i].states ? state_snapshot_.data() : snapshot_.data()) + job.shards[i].begin;
    const uint64_t size = job.shards[i].size;
    // One pass over memory for both checksums: each block is hashed for
    // its chunk and then, still in cache, fed to the shard's hash (the
    // records lie back to back in offset order; any gap is fed too).
    auto hash_shard = [&m, &chunks = chunks_of[i], data, size] {
      Xxh3Stream shard_hash;
      uint64_t hashed = 0;
      for (const size_t k : chunks) {  // each record belongs to one shard: one hasher touches it
        TensorRecord& t = m.tensors[k];
        if (t.offset > hashed) shard_hash.update(data + hashed, static_cast<size_t>(t.offset - hashed));
        t.block_xxh3.clear();
        for (uint64_t at = 0; at < t.bytes; at += m.block_bytes) {
          const uint8_t* block = data + t.offset + at;
          const auto length = static_cast<size_t>(std::min(m.block_bytes, t.bytes - at));
          t.block_xxh3.push_back(xxh3(block, length));
          shard_hash.update(block, length);
        }
        hashed = t.offset + t.bytes;
      }
      if (size > hashed) shard_hash.update(data + hashed, static_cast<size_t>(size - hashed));
      return shard_hash.digest();
    };
    auto hashing = std::async(std::launch::async, hash_shard);
    try {
      store_->put(base + "/" + m.shards[i].key, data, size);
    } catch (...) {
      hashing.wait();  // it reads the snapshot and writes the records
      throw;
    }
    m.shards[i].size = size;
    m.shards[i].xxh3 = hashing.get();
  });
}

uint64_t Engine::persist(Job& job) {
  if (group_) return persist_sharded(job);
  Manifest& m = job.manifest;
  const std::string base = key_of(m.name);
  try {
    // Before anything is written: a newer writer that claimed the prefix
    // may be using this very name, so a refusal here removes nothing.
    claim_.reserve(m.sequence, "writing it");
  } catch (const Error& e) {
    throw Error(e.code(), fmt::format("checkpoint {} was not saved: {}", m.name, e.what()));
  }
  try {
    write_shards(job, base);
    const auto bytes = encode_manifest(m);
    claim_.check_current("committing it");  // a stale writer's commit is refused (its shards go below)
    store_->put(base + "/manifest", bytes.data(), bytes.size());  // the commit point
    return m.shard_bytes() + bytes.size();
  } catch (const Error& e) {
    // Leave no half checkpoint behind when we can help it (the manifest was
    // never written, so recovery would skip it anyway).
    try {
      remove_checkpoint(m.name);
    } catch (...) {
    }
    throw Error(e.code(), fmt::format("checkpoint {} was not saved: {}", m.name, e.what()));
  }
}

PersistOutcome Engine::wait() {
  std::unique_lock lock(mutex_);
  wait_idle_locked(lock);
  if (last_error_) {
    Error error = *last_error_;
    last_error_.reset();
    throw error;
  }
  PersistOutcome out = last_persist_.value_or(PersistOutcome{});
  last_persist_.reset();
  return out;
}

std::optional<Engine::JobOutcome> Engine::wait_for(const std::string& name, std::optional<Clock::time_point> deadline) {
  std::unique_lock lock(mutex_);
  auto find = [&]() -> const JobOutcome* {
    for (const auto& outcome : outcomes_)
      if (outcome.name == name) return &outcome;
    return nullptr;
  };
  if (deadline) {
    if (!idle_cv_.wait_until(lock, *deadline, [&] { return find() != nullptr; })) return std::nullopt;
  } else {
    idle_cv_.wait(lock, [&] { return find() != nullptr; });
  }
  JobOutcome outcome = *find();
  // Reported here, so wait() must not report it a second time.
  if (outcome.error && last_error_ && std::string(last_error_->what()) == outcome.error->what()) last_error_.reset();
  return outcome;
}

Found Engine::examine(const CheckpointId& id, bool deep) const {
  Found found = examine_once(id, deep);
  // Retention removes the manifest first, then the shards: a reader that
  // raced it may find a shard (or the manifest) gone. If the manifest is
  // gone now, the checkpoint was retired, not damaged.
  if (found.status == FRUGAL_CKPT_CORRUPT || found.status == FRUGAL_CKPT_UNREADABLE) {
    bool manifest_present = true;
    try {
      manifest_present = store_->size_if_present(key_of(id.name) + "/manifest").has_value();
    } catch (const Error&) {
    }
    if (!manifest_present) {
      found.status = FRUGAL_CKPT_INCOMPLETE;
      found.reason = "no manifest: removed while being read (retention), or an interrupted save";
      found.manifest = Manifest{};
      found.manifest_read = false;
    }
  }
  return found;
}

Found Engine::examine_once(const CheckpointId& id, bool deep) const {
  Found found;
  found.id = id;
  auto decoded = read_manifest(*store_, key_of(id.name));
  found.status = decoded.status;
  found.reason = decoded.reason;
  if (decoded.status == FRUGAL_CKPT_VALID) {
    if (decoded.manifest.name != id.name) {
      found.status = FRUGAL_CKPT_CORRUPT;
      found.reason = fmt::format("manifest names checkpoint '{}', not '{}'", decoded.manifest.name, id.name);
    } else if (deep) {
      if (auto check = verify_shards(*store_, key_of(id.name), decoded.manifest); check.status != FRUGAL_CKPT_VALID) {
        found.status = check.status;
        found.reason = std::move(check.reason);
      }
    }
    found.manifest = std::move(decoded.manifest);
    found.manifest_read = true;
  }
  return found;
}

std::vector<Found> Engine::list(bool verify_shards_too) const {
  // Keyed by name too: two checkpoints sharing a sequence (written by
  // writers before fencing, or copied in) are both listed.
  std::map<std::pair<uint64_t, std::string>, CheckpointId> by_sequence;
  for_each_checkpoint_key([&](const CheckpointId& id) { by_sequence.emplace(std::pair(id.sequence, id.name), id); });
  std::vector<Found> out;
  for (auto it = by_sequence.rbegin(); it != by_sequence.rend(); ++it)
    out.push_back(examine(it->second, verify_shards_too));
  return out;
}

Found Engine::verify(const std::string& name, bool deep) const {
  const auto id = parse_checkpoint_name(name);
  if (!id)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "'{}' is not a checkpoint name (expected e.g. full-000000001200-00000007)", name);
  bool present = false;
  store_->list(key_of(name) + "/", [&](const std::string&, uint64_t) {
    present = true;
    return false;
  });
  if (!present) fail(FRUGAL_ERR_NOT_FOUND, "no checkpoint named '{}' in {}", name, store_->label());
  return examine(*id, deep);
}

void Engine::newest_valid(uint32_t kinds, const std::function<bool(Found&)>& take) const {
  if (kinds == 0) kinds = FRUGAL_CKPT_ALL_KINDS;
  std::string skipped;
  uint64_t newest_seen = 0;
  // Retention may retire every candidate of one listing while we walk it
  // (a busy saver with keep 1): if a fresh listing holds something newer,
  // walk again. Bounded: each round needs a newer checkpoint to exist.
  for (int round = 0; round < 4; ++round) {
    auto candidates = list(false);
    if (round > 0 && (candidates.empty() || candidates.front().id.sequence <= newest_seen)) break;
    if (!candidates.empty()) newest_seen = candidates.front().id.sequence;
    skipped.clear();
    for (auto& candidate : candidates) {
      if ((static_cast<uint32_t>(candidate.id.kind) & kinds) == 0) continue;
      if (candidate.status == FRUGAL_CKPT_VALID && take(candidate)) {
        if (!skipped.empty())
          store_->log(FRUGAL_LOG_WARN,
                      fmt::format("recovering from {}; skipped newer: {}", candidate.id.name, skipped));
        return;
      }
      skipped += fmt::format("{}{} ({})", skipped.empty() ? "" : "; ", candidate.id.name, candidate.reason);
    }
  }
  fail(FRUGAL_ERR_NOT_FOUND, "no valid checkpoint under '{}' in {}{}{}", options_.prefix, store_->label(),
       skipped.empty() ? "" : "; skipped: ", skipped);
}

Found Engine::latest(uint32_t kinds) const {
  Found out;
  newest_valid(kinds, [&](Found& candidate) {
    candidate = examine(candidate.id, true);
    if (candidate.status != FRUGAL_CKPT_VALID) return false;
    out = std::move(candidate);
    return true;
  });
  return out;
}

std::optional<Found> Engine::newest_full_before(const CheckpointId& heartbeat, std::string& skipped) const {
  for (const auto& candidate : list(false)) {  // newest first
    if (candidate.id.kind != FRUGAL_CKPT_FULL || candidate.id.sequence >= heartbeat.sequence) continue;
    Found found = candidate.status == FRUGAL_CKPT_VALID ? examine(candidate.id, true) : candidate;
    if (found.status == FRUGAL_CKPT_VALID && found.manifest.world_size > 0) {
      skipped += fmt::format("{}{} (sharded over {} ranks)", skipped.empty() ? "" : "; ", found.id.name,
                             found.manifest.world_size);
      continue;
    }
    if (found.status == FRUGAL_CKPT_VALID) return found;
    skipped += fmt::format("{}{} ({})", skipped.empty() ? "" : "; ", found.id.name, found.reason);
  }
  return std::nullopt;
}

std::vector<uint64_t> Engine::shard_layout(const Manifest& m, const std::vector<bool>& wanted, bool pad,
                                           uint64_t* end) {
  std::vector<uint64_t> begin(m.shards.size(), 0);
  uint64_t offset = 0;
  for (size_t i = 0; i < m.shards.size(); ++i) {
    if (!wanted[i]) continue;
    if (pad) offset = align_up(offset, kShardAlign);
    begin[i] = offset;
    offset += m.shards[i].size;
  }
  *end = offset;
  return begin;
}

std::vector<uint64_t> Engine::read_verified_shards(const Manifest& m, const std::vector<bool>& wanted, uint8_t* dst,
                                                   bool pad) const {
  // Each shard is read once into `dst` and its checksum taken over the very
  // bytes that will be scattered, so what is written is what verified; the
  // shard readers (shard_workers.hpp) hash one shard while another reads.
  uint64_t end = 0;
  std::vector<uint64_t> begin = shard_layout(m, wanted, pad, &end);
  std::vector<size_t> shards;
  for (size_t i = 0; i < m.shards.size(); ++i)
    if (wanted[i]) shards.push_back(i);
  for_each_shard(shards.size(), [&](size_t n) {
    const auto& shard = m.shards[shards[n]];
    uint8_t* into = dst + begin[shards[n]];
    const std::string key = key_of(m.name) + "/" + shard.key;
    require_shard_size(m, shard, key);
    store_->read(key, 0, into, shard.size);
    if (checksums_enforced() && xxh3(into, static_cast<size_t>(shard.size)) != shard.xxh3)
      fail(FRUGAL_ERR_DATA_CORRUPTED, "checkpoint {}: shard '{}' fails its checksum", m.name, shard.key);
  });
  return begin;
}

void Engine::require_shard_size(const Manifest& m, const ShardRecord& shard, const std::string& key) const {
  const auto size = store_->size_if_present(key);
  if (!size) fail(FRUGAL_ERR_DATA_CORRUPTED, "checkpoint {}: shard '{}' is missing", m.name, shard.key);
  if (*size != shard.size)
    fail(FRUGAL_ERR_DATA_CORRUPTED, "checkpoint {}: shard '{}' has {} bytes; the manifest says {}", m.name, shard.key,
         *size, shard.size);
}

void Engine::read_verified_in_place(const Manifest& m, const std::vector<bool>& wanted,
                                    const std::vector<const Registered*>& targets) const {
  // A tensor shard holds its records back to back from 0 to its size
  // (decode_manifest checks it), so feeding them in offset order hashes
  // exactly the shard's bytes.
  std::vector<std::vector<size_t>> records_of(m.shards.size());
  for (size_t k = 0; k < m.tensors.size(); ++k) records_of[m.tensors[k].shard].push_back(k);
  std::vector<size_t> shards;
  for (size_t i = 0; i < m.shards.size(); ++i)
    if (wanted[i]) shards.push_back(i);
  for_each_shard(shards.size(), [&](size_t n) {
    const size_t index = shards[n];
    const auto& shard = m.shards[index];
    const std::string key = key_of(m.name) + "/" + shard.key;
    require_shard_size(m, shard, key);
    auto& records = records_of[index];
    std::sort(records.begin(), records.end(),
              [&](size_t a, size_t b) { return m.tensors[a].offset < m.tensors[b].offset; });
    Xxh3Stream hash;
    for (const size_t k : records) {
      const TensorRecord& record = m.tensors[k];
      if (record.bytes == 0) continue;
      auto* dst = static_cast<uint8_t*>(targets[k]->view.data) + targets[k]->view.byte_offset;
      store_->read(key, record.offset, dst, record.bytes);
      hash.update(dst, static_cast<size_t>(record.bytes));
    }
    if (checksums_enforced() && hash.digest() != shard.xxh3)
      fail(FRUGAL_ERR_DATA_CORRUPTED, "checkpoint {}: shard '{}' fails its checksum", m.name, shard.key);
  });
}

RestoreOutcome Engine::restore(const char* name, uint32_t kinds, void* metadata, size_t capacity,
                               size_t* metadata_size) {
  if (capacity > 0 && metadata == nullptr)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "frugal_ckpt_restore: metadata is NULL but capacity is {}", capacity);
  // Reserve the engine first (as gc does): no persist, and so no retention,
  // can remove the checkpoint between choosing it and reading it.
  Reservation reservation(*this);
  // With a comm the ranks choose together (engine_sliced_restore.cpp).
  if (group_) return restore_sliced(name, kinds, metadata, capacity, metadata_size);
  // One pass over the bytes: a candidate's manifest is checked first, its
  // shards by the very read that restores them (each hashed as it arrives,
  // all before the first registered byte is written). A shard that fails
  // rules out a named checkpoint, and moves a restore of the newest one to
  // the next older, as a separate verification pass would have.
  if (name != nullptr) {
    Found found = verify(name, false);
    if (found.status != FRUGAL_CKPT_VALID)
      fail(FRUGAL_ERR_DATA_CORRUPTED, "checkpoint {} cannot be restored: {}", found.id.name, found.reason);
    return *restore_found(std::move(found), kinds, metadata, capacity, metadata_size, nullptr);
  }
  std::optional<RestoreOutcome> out;
  newest_valid(kinds, [&](Found& candidate) {
    std::string unverified;
    out = restore_found(candidate, kinds, metadata, capacity, metadata_size, &unverified);
    if (out) return true;
    candidate.status = FRUGAL_CKPT_CORRUPT;
    candidate.reason = std::move(unverified);
    return false;
  });
  return std::move(*out);
}

std::optional<RestoreOutcome> Engine::restore_found(Found found, uint32_t kinds, void* metadata, size_t capacity,
                                                    size_t* metadata_size, std::string* unverified) {
  RestoreOutcome out;
  out.found = std::move(found);
  const Manifest& m = out.found.manifest;
  // Every shard checked in a pass of its own, where the restore's read
  // cannot check them all: the reason when one fails (a named checkpoint:
  // DATA_CORRUPTED instead).
  auto verified_apart = [&]() -> std::optional<std::string> {
    auto check = verify_shards(*store_, key_of(m.name), m);
    if (check.status == FRUGAL_CKPT_VALID) return std::nullopt;
    if (unverified == nullptr)
      fail(FRUGAL_ERR_DATA_CORRUPTED, "checkpoint {} cannot be restored: {}", m.name, check.reason);
    return std::move(check.reason);
  };
  // A job's checkpoint, restored by one process: each registered tensor is
  // read as the whole of its global tensor, from just the block ranges it
  // needs (restore_sliced), so a shard damaged past them would go unseen.
  if (m.world_size > 0) {
    if (auto reason = verified_apart()) {
      *unverified = std::move(*reason);
      return std::nullopt;
    }
    return restore_sliced(out.found.id.name.c_str(), kinds, metadata, capacity, metadata_size);
  }
  if (m.metadata.size() > capacity) {
    // Too small a buffer restores nothing, and the size reported must be
    // that of the checkpoint a restore would take: its shards are verified
    // first, in the separate pass a restore otherwise saves.
    if (auto reason = verified_apart()) {
      *unverified = std::move(*reason);
      return std::nullopt;
    }
    *metadata_size = m.metadata.size();  // reported with OUT_OF_RANGE: the caller needs it to retry
    fail(FRUGAL_ERR_OUT_OF_RANGE, "checkpoint {} carries {} metadata bytes; the buffer holds {}", m.name,
         m.metadata.size(), capacity);
  }
  auto held = [&](const std::string& entry) {
    return std::any_of(m.tensors.begin(), m.tensors.end(), [&](const auto& r) { return r.name == entry; }) ||
           std::any_of(m.states.begin(), m.states.end(), [&](const auto& r) { return r.name == entry; });
  };
  auto full_only = [](uint32_t registered_kinds) { return (registered_kinds & FRUGAL_CKPT_HEARTBEAT) == 0; };

  // A heartbeat leaves full-only tensors and states out: those come from
  // the newest valid full checkpoint written before it (verified shard by
  // shard like the heartbeat itself), found before the lock is taken since
  // it reads.
  std::optional<Found> source;
  std::string skipped;
  if (m.kind == FRUGAL_CKPT_HEARTBEAT) {
    bool wanted = false;
    {
      std::lock_guard guard(mutex_);
      for (const auto& t : tensors_) wanted = wanted || (full_only(t.kinds) && !held(t.name));
      for (const auto& st : states_) wanted = wanted || (full_only(st.kinds) && !held(st.name));
    }
    if (wanted) source = newest_full_before(out.found.id, skipped);
  }

  std::unique_lock lock(mutex_);  // the reservation keeps the snapshot buffer ours
  ensure_snapshot_locked();
  // Match every tensor and state before touching anything.
  std::vector<const Registered*> targets;
  for (const auto& record : m.tensors) {
    auto it = std::find_if(tensors_.begin(), tensors_.end(), [&](const auto& t) { return t.name == record.name; });
    if (it == tensors_.end())
      fail(FRUGAL_ERR_FAILED_PRECONDITION, "checkpoint {} holds tensor '{}', which is not registered", m.name,
           record.name);
    if (it->view.dtype != record.dtype || it->shape != record.shape)
      fail(FRUGAL_ERR_FAILED_PRECONDITION,
           "checkpoint {}: tensor '{}' was saved as {} [{}] but is registered as {} [{}]", m.name, record.name,
           frugal_dtype_name(record.dtype), fmt::join(record.shape, ", "), frugal_dtype_name(it->view.dtype),
           fmt::join(it->shape, ", "));
    targets.push_back(&*it);
  }
  // What each state import will be given: the record, where its bytes
  // come from (this checkpoint or `source`), the registered state.
  struct StateImport {
    const StateRecord* record;
    bool from_source;
    const RegisteredState* target;
  };
  std::vector<StateImport> imports;
  for (const auto& record : m.states) {
    auto it = std::find_if(states_.begin(), states_.end(), [&](const auto& st) { return st.name == record.name; });
    if (it == states_.end())
      fail(FRUGAL_ERR_FAILED_PRECONDITION, "checkpoint {} holds state '{}', which is not registered", m.name,
           record.name);
    imports.push_back({&record, false, &*it});
  }
  const std::vector<bool> m_state_shards = state_shards(m);
  uint64_t tensor_shard_bytes = 0;
  for (size_t i = 0; i < m.shards.size(); ++i)
    if (!m_state_shards[i]) tensor_shard_bytes += m.shards[i].size;
  if (tensor_shard_bytes > snapshot_.size())
    fail(FRUGAL_ERR_FAILED_PRECONDITION, "checkpoint {} holds {} bytes of tensors, more than the {} registered", m.name,
         tensor_shard_bytes, snapshot_.size());

  // Every registered tensor and state the checkpoint does not hold: a
  // full-only one is taken from `source` when it holds it (a tensor: as
  // registered); the rest stay untouched and are reported (out.not_restored,
  // in registration order, and a warning).
  std::vector<std::pair<const TensorRecord*, const Registered*>> supplement;
  std::vector<std::tuple<uint64_t, std::string, std::string>> missing;  // order, name, why
  auto not_supplied = [&](uint32_t registered_kinds) -> std::string {
    if (m.kind != FRUGAL_CKPT_HEARTBEAT || !full_only(registered_kinds)) return fmt::format("not in {}", m.name);
    if (!source)
      return fmt::format("full-only, and no valid full checkpoint precedes {}{}{}", m.name,
                         skipped.empty() ? "" : "; skipped: ", skipped);
    return fmt::format("not in {}", source->id.name);
  };
  for (const auto& t : tensors_) {
    if (held(t.name)) continue;
    std::string reason = not_supplied(t.kinds);
    if (m.kind == FRUGAL_CKPT_HEARTBEAT && full_only(t.kinds) && source) {
      const auto& records = source->manifest.tensors;
      auto r = std::find_if(records.begin(), records.end(), [&](const auto& rec) { return rec.name == t.name; });
      if (r != records.end() && r->dtype == t.view.dtype && r->shape == t.shape) {
        supplement.emplace_back(&*r, &t);
        continue;
      }
      if (r != records.end())
        reason =
            fmt::format("{} holds it as {} [{}], registered as {} [{}]", source->id.name, frugal_dtype_name(r->dtype),
                        fmt::join(r->shape, ", "), frugal_dtype_name(t.view.dtype), fmt::join(t.shape, ", "));
    }
    missing.emplace_back(t.order, t.name, std::move(reason));
  }
  for (const auto& st : states_) {
    if (held(st.name)) continue;
    if (m.kind == FRUGAL_CKPT_HEARTBEAT && full_only(st.kinds) && source) {
      const auto& records = source->manifest.states;
      auto r = std::find_if(records.begin(), records.end(), [&](const auto& rec) { return rec.name == st.name; });
      if (r != records.end()) {
        imports.push_back({&*r, true, &st});
        continue;
      }
    }
    missing.emplace_back(st.order, st.name, not_supplied(st.kinds));
  }
  std::sort(missing.begin(), missing.end());
  std::sort(imports.begin(), imports.end(),
            [](const auto& a, const auto& b) { return a.target->order < b.target->order; });

  // Read and verify every shard (the heartbeat's, then the shards of the
  // full checkpoint that hold what it supplies) and every state's own
  // checksum before the first registered byte is written or state
  // imported: a checkpoint that fails here has changed nothing. Tensor
  // shards go to the snapshot buffer, state shards to buffers of their own.
  std::vector<uint64_t> shard_begin, m_state_begin, source_begin, source_state_begin;
  std::vector<uint8_t> m_state_bytes, source_state_bytes;
  HostBuffer overflow;
  uint8_t* source_data = nullptr;
  auto state_data = [&](const StateImport& import) {
    return import.from_source
               ? source_state_bytes.data() + source_state_begin[import.record->shard] + import.record->offset
               : m_state_bytes.data() + m_state_begin[import.record->shard] + import.record->offset;
  };
  // In place only where every tensor the checkpoint holds is CPU memory
  // (a device tensor needs the staging buffer anyway).
  const bool in_place = options_.restore_in_place &&
                        std::all_of(targets.begin(), targets.end(),
                                    [](const Registered* t) { return t->view.device.type == FRUGAL_DEVICE_CPU; });
  auto read_and_verify = [&] {
    std::vector<bool> m_tensor_shards(m_state_shards.size());
    std::transform(m_state_shards.begin(), m_state_shards.end(), m_tensor_shards.begin(), std::logical_not<>());
    uint64_t tensor_end = 0;
    if (in_place) {
      read_verified_in_place(m, m_tensor_shards, targets);
    } else {
      // Each shard on a kShardAlign boundary (direct reads) when the pads fit.
      (void)shard_layout(m, m_tensor_shards, true, &tensor_end);
      const bool pad = tensor_end <= snapshot_.size();
      shard_begin = read_verified_shards(m, m_tensor_shards, snapshot_.data(), pad);
      if (!pad) tensor_end = tensor_shard_bytes;
    }
    m_state_begin = read_state_shards(m, m_state_shards, m_state_bytes);
    std::vector<bool> source_wanted(source ? source->manifest.shards.size() : 0, false);
    std::vector<bool> source_state_wanted(source_wanted.size(), false);
    for (const auto& [record, target] : supplement) source_wanted[record->shard] = true;
    uint64_t source_bytes = 0;
    if (source) (void)shard_layout(source->manifest, source_wanted, true, &source_bytes);
    for (const auto& import : imports)
      if (import.from_source) source_state_wanted[import.record->shard] = true;
    // Behind the heartbeat in the snapshot buffer when it fits; otherwise a
    // buffer of its own for the duration of this call.
    const uint64_t source_at = align_up(tensor_end, kShardAlign);
    source_data = snapshot_.data() + source_at;
    if (source_bytes > 0 && source_at + source_bytes > snapshot_.size()) {
      overflow = HostBuffer(static_cast<size_t>(source_bytes), snapshot_.pinned());
      source_data = overflow.data();
    }
    if (!supplement.empty()) source_begin = read_verified_shards(source->manifest, source_wanted, source_data, true);
    if (source) source_state_begin = read_state_shards(source->manifest, source_state_wanted, source_state_bytes);
    for (const auto& import : imports)
      if (checksums_enforced() &&
          xxh3(state_data(import), static_cast<size_t>(import.record->size)) != import.record->xxh3)
        fail(FRUGAL_ERR_DATA_CORRUPTED, "checkpoint {}: state '{}' fails its checksum",
             import.from_source ? source->id.name : m.name, import.record->name);
  };
  try {
    read_and_verify();
  } catch (const Error& e) {
    // In place, the tensors read before the failure hold its bytes now.
    const std::string overwritten =
        in_place ? " (restored in place: registered tensors may hold this checkpoint's unverified bytes until "
                   "another restore succeeds)"
                 : "";
    // What a verification pass would have reported as CORRUPT (a shard
    // missing, resized or failing its checksum) or UNREADABLE (the store
    // failed to read it).
    const int32_t code =
        e.code() == FRUGAL_ERR_NOT_FOUND || e.code() == FRUGAL_ERR_OUT_OF_RANGE ? FRUGAL_ERR_DATA_CORRUPTED : e.code();
    if (code != FRUGAL_ERR_DATA_CORRUPTED && code != FRUGAL_ERR_IO) throw;  // not about the checkpoint
    if (unverified == nullptr) fail(code, "checkpoint {} cannot be restored: {}{}", m.name, e.what(), overwritten);
    *unverified = e.what() + overwritten;
    return std::nullopt;
  }

  DiscardCopiesOnThrow discard_on_throw(copier_);
  auto scatter = [&](const TensorRecord& record, const Registered& target, const uint8_t* shard) {
    auto* dst = static_cast<uint8_t*>(target.view.data) + target.view.byte_offset;
    if (record.bytes > 0)
      copier_.from_host(dst, shard + record.offset, static_cast<size_t>(record.bytes), target.view.device);
  };
  if (!in_place)
    for (size_t i = 0; i < m.tensors.size(); ++i)
      scatter(m.tensors[i], *targets[i], snapshot_.data() + shard_begin[m.tensors[i].shard]);
  for (const auto& [record, target] : supplement) scatter(*record, *target, source_data + source_begin[record->shard]);
  copier_.finish();
  // States cannot be rolled back: they go after the tensors, and a refused
  // import ends the restore there (frugal_ckpt_restore says what is written).
  for (const auto& import : imports)
    import_state(*import.target, state_data(import), import.record->size,
                 import.from_source ? source->id.name : m.name);
  if (!m.metadata.empty()) std::memcpy(metadata, m.metadata.data(), m.metadata.size());
  *metadata_size = m.metadata.size();

  if (m.kind == FRUGAL_CKPT_FULL)
    out.full_source = m.name;
  else if (!supplement.empty() ||
           std::any_of(imports.begin(), imports.end(), [](const auto& i) { return i.from_source; }))
    out.full_source = source->id.name;
  std::vector<std::string> why;
  for (const auto& [order, entry, reason] : missing) {
    out.not_restored.push_back(entry);
    why.push_back(fmt::format("'{}' ({})", entry, reason));
  }
  if (!why.empty())
    store_->log(FRUGAL_LOG_WARN,
                fmt::format("restored {}{}; registered tensors and states left as they were: {}", m.name,
                            out.full_source.empty() || out.full_source == m.name
                                ? std::string()
                                : " with full-only state from " + out.full_source,
                            fmt::join(why, "; ")));
  restore_report_ = out.not_restored;
  remember_metadata_locked(m);
  return out;
}

void Engine::remember_metadata_locked(const Manifest& m) {
  Manifest kept;
  kept.name = m.name;
  kept.world_size = m.world_size;
  kept.metadata = m.metadata;
  kept.rank_metadata = m.rank_metadata;
  restored_metadata_ = std::move(kept);
}

std::vector<uint8_t> Engine::restored_metadata(uint32_t rank) const {
  std::lock_guard lock(mutex_);
  if (!restored_metadata_)
    fail(FRUGAL_ERR_FAILED_PRECONDITION,
         "frugal_ckpt_restored_metadata: no frugal_ckpt_restore on this engine has succeeded yet");
  const Manifest& m = *restored_metadata_;
  const uint32_t ranks = std::max<uint32_t>(m.world_size, 1);
  if (rank >= ranks)
    fail(FRUGAL_ERR_OUT_OF_RANGE, "frugal_ckpt_restored_metadata: rank {} is not a rank of the job of {} that wrote {}",
         rank, ranks, m.name);
  return m.metadata_of(rank);
}

void Engine::remove_checkpoint(const std::string& checkpoint) const {
  std::vector<std::string> keys;
  store_->list(key_of(checkpoint) + "/", [&](const std::string& key, uint64_t) {
    keys.push_back(key);
    return true;
  });
  // Manifest first: the checkpoint stops existing before its shards go.
  std::stable_partition(keys.begin(), keys.end(), [](const std::string& k) { return k.ends_with("/manifest"); });
  for (const auto& key : keys) store_->remove(key);
}

Engine::Reservation::Reservation(Engine& engine) : engine_(engine) {
  std::unique_lock lock(engine_.mutex_);
  engine_.wait_idle_locked(lock);
  engine_.busy_ = true;
}

Engine::Reservation::~Reservation() {
  {
    std::lock_guard lock(engine_.mutex_);
    engine_.busy_ = false;
  }
  engine_.idle_cv_.notify_all();
  engine_.job_cv_.notify_one();  // a registration meanwhile may want the buffer grown
}

uint32_t Engine::gc() {
  // Reserved as a persist would be, so no save commits mid-pass; the pass
  // itself runs unlocked (it takes the lock briefly).
  Reservation reservation(*this);
  if (claim_.claimed()) claim_.check_current("frugal_ckpt_gc");  // a fenced writer removes nothing
  return retention_pass("");
}

uint32_t Engine::retention_pass(const std::string& protect) {
  auto all = list(false);
  // A checkpoint counts toward the keep limits only once its shards have
  // verified (at most once per engine: commits of this engine are known
  // good). Otherwise a newer checkpoint with a damaged shard could push the
  // last intact one out.
  for (auto& f : all) {
    if (f.status != FRUGAL_CKPT_VALID || f.id.name == protect) continue;
    bool known_good = false;
    {
      std::lock_guard guard(mutex_);
      known_good = verified_.count(f.id.name) != 0;
    }
    if (known_good) continue;
    f = examine(f.id, true);
    if (f.status == FRUGAL_CKPT_VALID) {
      std::lock_guard guard(mutex_);
      verified_.insert(f.id.name);
    }
  }
  uint64_t newest_valid = 0;
  for (const auto& f : all)
    if (f.status == FRUGAL_CKPT_VALID) newest_valid = std::max(newest_valid, f.id.sequence);
  int64_t heartbeats = 0, fulls = 0;
  uint32_t removed = 0;
  for (const auto& f : all) {  // newest first
    if (f.id.name == protect) {
      (f.id.kind == FRUGAL_CKPT_FULL ? fulls : heartbeats)++;
      continue;
    }
    bool remove = false;
    if (f.status == FRUGAL_CKPT_VALID) {
      int64_t& kept = f.id.kind == FRUGAL_CKPT_FULL ? fulls : heartbeats;
      const int64_t limit = f.id.kind == FRUGAL_CKPT_FULL ? options_.keep_full : options_.keep_heartbeats;
      remove = kept >= limit;
      if (!remove) ++kept;
    } else if (f.status == FRUGAL_CKPT_INCOMPLETE || f.status == FRUGAL_CKPT_CORRUPT) {
      // Torn or corrupt, and older than something valid: never useful again.
      // UNREADABLE (an I/O error, maybe transient) and NEWER_FORMAT are kept.
      remove = f.id.sequence < newest_valid;
    }
    if (remove) {
      // A fenced writer removes nothing: the newer one decides what stays.
      // (An engine that never saved, e.g. a tool's gc, claims nothing and
      // is not fenced.)
      if (claim_.claimed()) claim_.check_current(fmt::format("removing checkpoint {}", f.id.name));
      remove_checkpoint(f.id.name);
      ++removed;
    }
  }
  return removed;
}

std::string Engine::inspect_json(const std::string& name) const {
  const auto id = parse_checkpoint_name(name);
  if (!id) fail(FRUGAL_ERR_INVALID_ARGUMENT, "'{}' is not a checkpoint name", name);
  auto decoded = read_manifest(*store_, key_of(name));
  if (decoded.status != FRUGAL_CKPT_VALID)
    fail(decoded.status == FRUGAL_CKPT_INCOMPLETE ? FRUGAL_ERR_NOT_FOUND : FRUGAL_ERR_DATA_CORRUPTED,
         "checkpoint {}: {}", name, decoded.reason);
  return manifest_to_json(decoded.manifest);
}

}  // namespace frugal::ckpt
