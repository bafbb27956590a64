// Sharded checkpoints across ranks, run under mpirun (CMakeLists.txt):
//   sharded_ranks save DIR      N ranks save two checkpoints of a job
//   sharded_ranks restore DIR   M ranks (any M) restore the newest
//   sharded_ranks plain DIR     one process, no comm, restores it whole
//   sharded_ranks disagree DIR  ranks save different steps: refused on all
//   sharded_ranks corrupt DIR   one rank's shard damaged: all restore the older
//   sharded_ranks heartbeat_save DIR     full checkpoints, then a heartbeat
//   sharded_ranks heartbeat_restore DIR  M ranks restore the heartbeat, its
//                               full-only state from a full checkpoint
//   sharded_ranks heartbeat_plain DIR    the same, one process without a comm
//   sharded_ranks preempt DIR   a notice on rank 1 reaches every rank with the
//                               next save; the emergency save commits on all
//   sharded_ranks preempt_late DIR  (after preempt) one rank cannot finish in
//                               the emergency window: no rank commits
// The job and the checks of every element: sharded_job.hpp.
#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "sharded_job.hpp"

namespace host = frugal::host;
using namespace frugal::test::sharded;

namespace {

frugal_ckpt_save_args save_args(uint64_t step, const std::string& metadata) {
  frugal_ckpt_save_args args{};
  args.struct_size = sizeof(args);
  args.kind = FRUGAL_CKPT_FULL;
  args.flags = FRUGAL_CKPT_SAVE_WAIT;
  args.step = step;
  args.metadata = metadata.data();
  args.metadata_size = metadata.size();
  return args;
}

int g_failures = 0;
int g_rank = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "rank %d: FAILED: %s\n", g_rank, what.c_str());
    ++g_failures;
  }
}

// Flips one bit of byte 5 of `file` (a shard: its checksums no longer match).
void flip_byte(const std::string& file) {
  std::FILE* f = std::fopen(file.c_str(), "r+b");
  expect(f != nullptr, "open " + file);
  if (f == nullptr) return;
  std::fseek(f, 5, SEEK_SET);
  const int c = std::fgetc(f);
  std::fseek(f, 5, SEEK_SET);
  std::fputc(c ^ 0x10, f);
  std::fclose(f);
}

void save(const std::string& dir, int rank, int size) {
  Job job(dir, true);
  auto tensors = job_tensors(rank, size);
  register_all(job.engine.get(), tensors, true);
  for (const uint64_t step : {100, 200}) {
    for (auto& s : tensors) s.fill(step);
    const std::string metadata = metadata_of(step, rank);
    const auto args = save_args(step, metadata);
    frugal_ckpt_save_result result{};
    result.struct_size = sizeof(result);
    host::check(frugal_ckpt_save(job.engine.get(), &args, &result));
    expect(std::string(result.name).find(std::to_string(step)) != std::string::npos, "save name has the step");
  }
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  host::check(frugal_ckpt_latest(job.engine.get(), FRUGAL_CKPT_ALL_KINDS, &info));
  expect(info.step == 200 && info.status == FRUGAL_CKPT_VALID, "the newest checkpoint is step 200 and verifies");
  expect(info.world_size == static_cast<uint32_t>(size), "its info names the job's world size");
  // A sharded tensor counts once; the rank-local one once per rank.
  expect(info.tensor_count == 4 + static_cast<uint32_t>(size),
         "its info counts " + std::to_string(4 + size) + " tensors, not " + std::to_string(info.tensor_count));
}

void restore(const std::string& dir, int rank, int size, bool with_comm, int written_by, uint64_t expected = 200) {
  Job job(dir, with_comm);
  auto tensors = job_tensors(rank, size);
  register_all(job.engine.get(), tensors, with_comm);
  for (auto& s : tensors) std::memset(s.bytes.data(), 0xA5, s.bytes.size());
  std::vector<char> metadata(256);
  size_t metadata_size = 0;
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  host::check(frugal_ckpt_restore(job.engine.get(), nullptr, FRUGAL_CKPT_ALL_KINDS, metadata.data(), metadata.size(),
                                  &metadata_size, &info));
  expect(info.step == expected, "restored step " + std::to_string(expected) + ", got " + std::to_string(info.step));
  expect(info.world_size == static_cast<uint32_t>(written_by), "the restored info names the writing job's size");
  expect(std::string(metadata.data(), metadata_size) == restored_metadata_of(expected, rank, size, info.world_size),
         "the restore gives '" + restored_metadata_of(expected, rank, size, info.world_size) + "', not '" +
             std::string(metadata.data(), metadata_size) + "'");
  // Every saving rank's metadata, whatever this job's size.
  for (int r = 0; r < written_by; ++r) {
    size_t size_of = 0;
    const auto read = outcome(frugal_ckpt_restored_metadata(job.engine.get(), static_cast<uint32_t>(r), metadata.data(),
                                                            metadata.size(), &size_of));
    expect(read.code == FRUGAL_OK && std::string(metadata.data(), size_of) == metadata_of(expected, r),
           "frugal_ckpt_restored_metadata gives rank " + std::to_string(r) + "'s metadata");
  }
  size_t needed = 0;
  const auto small = outcome(frugal_ckpt_restored_metadata(job.engine.get(), 1, metadata.data(), 3, &needed));
  expect(small.code == FRUGAL_ERR_OUT_OF_RANGE && needed == metadata_of(expected, 1).size(),
         "a buffer too small is refused with the size needed: " + small.message);
  const auto past = outcome(frugal_ckpt_restored_metadata(job.engine.get(), static_cast<uint32_t>(written_by),
                                                          metadata.data(), metadata.size(), &needed));
  expect(past.code == FRUGAL_ERR_OUT_OF_RANGE &&
             past.message.find("job of " + std::to_string(written_by)) != std::string::npos,
         "a rank past the writing job is refused by name: " + past.message);
  const auto report = not_restored(job.engine.get(), info);
  for (auto& s : tensors) {
    if (!s.sliced && rank >= written_by) {
      // No rank of the writing job had this rank's number.
      expect(report.size() == 1 && report[0] == s.name, "rank-local '" + s.name + "' reported as not restored");
      expect(s.bytes == std::vector<uint8_t>(s.bytes.size(), 0xA5), "rank-local '" + s.name + "' left as it was");
      continue;
    }
    const uint64_t bad = s.wrong(expected);
    expect(bad == 0, "'" + s.name + "': " + std::to_string(bad) + " of " + std::to_string(s.count()) +
                         " elements differ from the global tensor");
  }
  if (rank < written_by) expect(report.empty(), "every tensor restored");
}

void disagree(const std::string& dir, int rank, int size) {
  Job job(dir, true);
  auto tensors = job_tensors(rank, size);
  register_all(job.engine.get(), tensors, true);
  const uint64_t step = rank == size - 1 ? 301 : 300;
  const std::string no_metadata;
  const auto args = save_args(step, no_metadata);
  frugal_ckpt_save_result result{};
  result.struct_size = sizeof(result);
  const auto refused = outcome(frugal_ckpt_save(job.engine.get(), &args, &result));
  expect(refused.code == FRUGAL_ERR_INVALID_ARGUMENT, "a save at different steps is refused on every rank");
  expect(refused.message.find("every rank must save the same kind at the same step") != std::string::npos,
         "the refusal says why: " + refused.message);
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  host::check(frugal_ckpt_latest(job.engine.get(), FRUGAL_CKPT_ALL_KINDS, &info));
  expect(info.step == 200, "the newest checkpoint is still step 200");
  // Metadata that fits each rank but not the job's checkpoint: every rank
  // but rank 0 saves 40 MiB of its own, refused on all before a snapshot.
  const std::string big(rank == 0 ? 0 : size_t{40} << 20, static_cast<char>('a' + rank));
  const auto big_args = save_args(300, big);
  const auto too_big = outcome(frugal_ckpt_save(job.engine.get(), &big_args, nullptr));
  expect(too_big.code == FRUGAL_ERR_OUT_OF_RANGE && too_big.message.find("more than the 64 MiB") != std::string::npos,
         "the job's metadata past 64 MiB is refused on every rank: " + too_big.message);
  host::check(frugal_ckpt_latest(job.engine.get(), FRUGAL_CKPT_ALL_KINDS, &info));
  expect(info.step == 200, "the newest checkpoint is still step 200 after the refusal");
}

// Rank 0 flips one byte of rank 1's first shard of the newest checkpoint;
// then every rank must restore the older one, whichever rank reads the
// damaged block.
void corrupt_then_restore(const std::string& dir, int rank, int size) {
  if (rank == 0) {
    flip_byte(dir + "/full-000000000200-00000002/r00001-shard-00000");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  restore(dir, rank, size, true, 4, 100);
}

// A heartbeat leaves out the full-only state (optimizer moments, a
// full-only host state): its restore takes them from the newest full
// checkpoint before it that every rank can read.
struct FullOnly {
  Slice moments;      // 2048 x 4 floats split on dim 0: 8 KiB per rank of 4, a shard of its own
  std::string state;  // "opt <step> rank <r>", exported by a full-only state
  std::string imported;
};

void register_full_only(frugal_ckpt_engine* engine, FullOnly& full, int rank, int size, bool with_slices) {
  full.moments = with_view(split_slice("moments", rank, size, FRUGAL_DTYPE_FLOAT32, 4, {2048, 4}, 0));
  full.moments.kinds = FRUGAL_CKPT_FULL;
  std::vector<Slice> one;
  one.push_back(std::move(full.moments));
  register_all(engine, one, with_slices);
  full.moments = std::move(one.front());
  frugal_ckpt_state_fns fns{};
  fns.struct_size = sizeof(fns);
  fns.user_data = &full;
  fns.export_state = [](void* user_data, void* buffer, size_t capacity, size_t* written) -> frugal_error* {
    const std::string& state = static_cast<FullOnly*>(user_data)->state;
    *written = state.size();
    if (capacity >= state.size()) std::memcpy(buffer, state.data(), state.size());
    return nullptr;
  };
  fns.import_state = [](void* user_data, const void* bytes, size_t count) -> frugal_error* {
    static_cast<FullOnly*>(user_data)->imported.assign(static_cast<const char*>(bytes), count);
    return nullptr;
  };
  host::check(frugal_ckpt_register_state(engine, "optimizer", &fns, FRUGAL_CKPT_FULL));
}

std::string full_state_of(uint64_t step, int rank) {
  return "opt " + std::to_string(step) + " rank " + std::to_string(rank);
}

// N ranks save full checkpoints at steps 50 and 100 and a heartbeat at
// 150; then one byte of rank 1's moments in the step-100 one is flipped.
void heartbeat_save(const std::string& dir, int rank, int size) {
  Job job(dir, true);
  FullOnly full;
  register_full_only(job.engine.get(), full, rank, size, true);  // first: each rank's shard 0 holds its moments alone
  auto tensors = job_tensors(rank, size);
  register_all(job.engine.get(), tensors, true);
  for (const uint64_t step : {50, 100, 150}) {
    for (auto& s : tensors) s.fill(step);
    full.moments.fill(step);
    full.state = full_state_of(step, rank);
    const std::string metadata = metadata_of(step, rank);
    auto args = save_args(step, metadata);
    args.kind = step == 150 ? FRUGAL_CKPT_HEARTBEAT : FRUGAL_CKPT_FULL;
    host::check(frugal_ckpt_save(job.engine.get(), &args, nullptr));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    // Rank 1's first shard holds only its moments (registered first, more
    // than a shard's worth).
    flip_byte(dir + "/full-000000000100-00000002/r00001-shard-00000");
  }
}

// M ranks restore the heartbeat of step 150: its own tensors at 150, the
// full-only moments and state from the step-50 full checkpoint (the
// step-100 one fails a block on the ranks that read rank 1's chunk, so
// every rank skips it).
void heartbeat_restore(const std::string& dir, int rank, int size, bool with_comm, int written_by) {
  Job job(dir, with_comm);
  FullOnly full;
  register_full_only(job.engine.get(), full, rank, size, with_comm);
  auto tensors = job_tensors(rank, size);
  register_all(job.engine.get(), tensors, with_comm);
  std::memset(full.moments.bytes.data(), 0xA5, full.moments.bytes.size());
  std::vector<char> metadata(256);
  size_t metadata_size = 0;
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  host::check(frugal_ckpt_restore(job.engine.get(), nullptr, FRUGAL_CKPT_ALL_KINDS, metadata.data(), metadata.size(),
                                  &metadata_size, &info));
  expect(info.step == 150 && info.kind == FRUGAL_CKPT_HEARTBEAT, "restored the step-150 heartbeat");
  expect(std::string(info.full_source) == "full-000000000050-00000001",
         "the full-only state came from the step-50 full checkpoint, not " + std::string(info.full_source));
  expect(full.moments.wrong(50) == 0, "the moments hold step 50's values");
  for (auto& s : tensors)
    if (s.sliced || rank < written_by) expect(s.wrong(150) == 0, "'" + s.name + "' holds step 150's values");
  expect(full.imported == (rank < written_by ? full_state_of(50, rank) : std::string()),
         "the optimizer state imported is '" + full.imported + "'");
  const auto report = not_restored(job.engine.get(), info);
  expect(rank < written_by ? report.empty() : report.size() == 2,
         "rank " + std::to_string(rank) + " reports " + std::to_string(report.size()) + " not restored");
}

frugal_ckpt_info latest_of(frugal_ckpt_engine* engine) {
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  host::check(frugal_ckpt_latest(engine, FRUGAL_CKPT_ALL_KINDS, &info));
  return info;
}

// A notice that only rank 1 received reaches every rank with the job's
// next save; the emergency save that follows is collective and commits.
void preempt(const std::string& dir, int rank, int size) {
  Job job(dir, true);
  auto tensors = job_tensors(rank, size);
  register_all(job.engine.get(), tensors, true);
  for (auto& s : tensors) s.fill(100);
  const std::string metadata = metadata_of(100, rank);
  const auto args = save_args(100, metadata);
  host::check(frugal_ckpt_save(job.engine.get(), &args, nullptr));
  // The per-step agreement: a notice only rank 1 received reaches every
  // rank; with none, every rank reads 0.
  frugal_preemption_clear();
  int32_t pending = -1;
  host::check(frugal_ckpt_preemption_agree(job.engine.get(), &pending));
  expect(pending == 0 && frugal_preemption_pending() == 0, "no notice, no rank preempted");
  if (rank == 1) frugal_preemption_notify();
  host::check(frugal_ckpt_preemption_agree(job.engine.get(), &pending));
  expect(pending == 1 && frugal_preemption_pending() != 0,
         "the agreement tells rank " + std::to_string(rank) + " of rank 1's notice");
  // The save's agreement carries the ranks' notices too: one that only
  // rank 1 received is recorded on every rank when the job's next save
  // returns.
  frugal_preemption_clear();
  if (rank == 1) frugal_preemption_notify();  // only rank 1's node was told
  expect(frugal_preemption_pending() == (rank == 1 ? 1 : 0), "before the save only rank 1 knows");
  const std::string next_metadata = metadata_of(100, rank);
  const auto again = save_args(100, next_metadata);
  host::check(frugal_ckpt_save(job.engine.get(), &again, nullptr));
  expect(frugal_preemption_pending() != 0, "after the save rank " + std::to_string(rank) + " knows too");
  for (auto& s : tensors) s.fill(101);
  const std::string emergency_metadata = metadata_of(101, rank);
  auto emergency = save_args(101, emergency_metadata);
  frugal_ckpt_emergency_result result{};
  result.struct_size = sizeof(result);
  host::check(frugal_ckpt_emergency_save(job.engine.get(), &emergency, 60.0, &result));
  expect(result.committed == 1, "the collective emergency save committed on every rank");
  frugal_preemption_clear();
  const auto info = latest_of(job.engine.get());
  expect(info.step == 101 && info.emergency == 1 && info.world_size == static_cast<uint32_t>(size),
         "the newest checkpoint is the job's emergency heartbeat of step 101");
}

// Rank 2's snapshot takes longer than the emergency window (a state whose
// export is slow): the save must fail or report not committed on every
// rank and no rank may commit it; the step-101 emergency checkpoint stays
// the newest. The ranks that waited for rank 2 time out at the deadline,
// which leaves the engine's comm broken (as after any collective that
// timed out): the program ends without MPI_Finalize, and the test counts
// the ranks that passed.
void preempt_late(const std::string& dir, int rank, int size) {
  auto* job = new Job(dir, true);  // never destroyed: its comm ends broken
  auto tensors = job_tensors(rank, size);
  register_all(job->engine.get(), tensors, true);
  frugal_ckpt_state_fns slow{};
  slow.struct_size = sizeof(slow);
  slow.user_data = &rank;
  slow.export_state = [](void* user_data, void* buffer, size_t capacity, size_t* written) -> frugal_error* {
    if (*static_cast<int*>(user_data) == 2) std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    *written = 1;
    if (capacity >= 1) *static_cast<uint8_t*>(buffer) = 7;
    return nullptr;
  };
  slow.import_state = [](void*, const void*, size_t) -> frugal_error* { return nullptr; };
  host::check(frugal_ckpt_register_state(job->engine.get(), "slow", &slow, 0));
  for (auto& s : tensors) s.fill(102);
  const std::string metadata = metadata_of(102, rank);
  auto emergency = save_args(102, metadata);
  frugal_ckpt_emergency_result result{};
  result.struct_size = sizeof(result);
  const auto started = std::chrono::steady_clock::now();
  const auto saved = outcome(frugal_ckpt_emergency_save(job->engine.get(), &emergency, 0.5, &result));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  expect(saved.code != 0 || result.committed == 0,
         "the emergency save does not commit on rank " + std::to_string(rank) + " (" + saved.message + ")");
  if (rank != 2)
    expect(seconds < 1.4, "rank " + std::to_string(rank) + " returned within the window, not after rank 2");
  // Rank 2's shards land after the others gave up; give them time, then
  // look with an engine of this process alone (the job's comm is broken).
  std::this_thread::sleep_for(std::chrono::milliseconds(rank == 2 ? 300 : 2000));
  Job alone(dir, false);
  const auto info = latest_of(alone.engine.get());
  expect(info.step == 101, "the newest checkpoint is still the step-101 one, not " + std::to_string(info.step));
  auto visit = [](void* user_data, const frugal_ckpt_info* found) -> int32_t {
    if (found->step == 102 && found->status == FRUGAL_CKPT_VALID) *static_cast<bool*>(user_data) = true;
    return 0;
  };
  bool committed = false;
  host::check(frugal_ckpt_list(alone.engine.get(), 0, visit, &committed));
  expect(!committed, "no rank committed the late emergency checkpoint");
  // Said before any rank may end: one that ends without MPI_Finalize makes
  // mpirun end the others, so each waits (through files; MPI is broken)
  // until every rank has said its result.
  std::printf("rank %d: preempt_late %s\n", rank, g_failures == 0 ? "passed" : "FAILED");
  std::fflush(stdout);
  namespace fs = std::filesystem;
  const fs::path marks = fs::path(dir).parent_path() / (fs::path(dir).filename().string() + "-checked");
  fs::create_directories(marks);
  std::ofstream(marks / std::to_string(rank)).put('\n');
  for (int waited = 0; waited < 400; ++waited) {
    int ready = 0;
    for (int r = 0; r < size; ++r) ready += fs::exists(marks / std::to_string(r)) ? 1 : 0;
    if (ready == size) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: sharded_ranks save|restore|plain|disagree DIR WRITTEN_BY\n");
    return 2;
  }
  const std::string mode = argv[1];
  const std::string dir = argv[2];
  const int written_by = std::atoi(argv[3]);
  try {
    if (mode == "plain") {
      restore(dir, 0, 1, false, written_by);
    } else if (mode == "heartbeat_plain") {
      heartbeat_restore(dir, 0, 1, false, written_by);
    } else {
      int provided = 0;
      MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
      int size = 1;
      MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
      MPI_Comm_size(MPI_COMM_WORLD, &size);
      if (mode == "save")
        save(dir, g_rank, size);
      else if (mode == "restore")
        restore(dir, g_rank, size, true, written_by);
      else if (mode == "disagree")
        disagree(dir, g_rank, size);
      else if (mode == "corrupt")
        corrupt_then_restore(dir, g_rank, size);
      else if (mode == "heartbeat_save")
        heartbeat_save(dir, g_rank, size);
      else if (mode == "heartbeat_restore")
        heartbeat_restore(dir, g_rank, size, true, written_by);
      else if (mode == "preempt")
        preempt(dir, g_rank, size);
      else if (mode == "preempt_late") {
        preempt_late(dir, g_rank, size);
        // The engine's comm is broken: no MPI_Finalize (it could wait for
        // the timed-out calls); the test counts the ranks that passed.
        std::_Exit(g_failures == 0 ? 0 : 1);
      } else
        expect(false, "unknown mode " + mode);
      MPI_Finalize();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", g_rank, e.what());
    return 1;
  }
  if (g_failures == 0) std::printf("rank %d: %s passed\n", g_rank, mode.c_str());
  return g_failures == 0 ? 0 : 1;
}
