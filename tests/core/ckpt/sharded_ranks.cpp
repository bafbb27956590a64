// Sharded checkpoints across ranks, run under mpirun (CMakeLists.txt):
//   sharded_ranks save DIR      N ranks save two checkpoints of a job
//   sharded_ranks restore DIR   M ranks (any M) restore the newest
//   sharded_ranks plain DIR     one process, no comm, restores it whole
//   sharded_ranks disagree DIR  ranks save different steps: refused on all
//   sharded_ranks corrupt DIR   one rank's shard damaged: all restore the older
// The job and the checks of every element: sharded_job.hpp.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
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
  expect(std::string(metadata.data(), metadata_size) == metadata_of(expected, 0),
         "the checkpoint's metadata is rank 0's");
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
}

// Rank 0 flips one byte of rank 1's first shard of the newest checkpoint;
// then every rank must restore the older one, whichever rank reads the
// damaged block.
void corrupt_then_restore(const std::string& dir, int rank, int size) {
  if (rank == 0) {
    const std::string shard = dir + "/full-000000000200-00000002/r00001-shard-00000";
    std::FILE* f = std::fopen(shard.c_str(), "r+b");
    expect(f != nullptr, "open " + shard);
    if (f != nullptr) {
      std::fseek(f, 5, SEEK_SET);
      const int c = std::fgetc(f);
      std::fseek(f, 5, SEEK_SET);
      std::fputc(c ^ 0x10, f);
      std::fclose(f);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  restore(dir, rank, size, true, 4, 100);
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
      else
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
