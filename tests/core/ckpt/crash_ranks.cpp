// crash_ranks <store_root> <report>: a job of M ranks (mpirun -np M) that
// resumes from the newest checkpoint of the store, whatever world size
// wrote it, then trains and saves collectively every step until
// test_crash_ranks SIGKILLs some of its ranks (mpirun then ends the rest).
//
// The resume is the check: every rank restores, verifies each element of
// its slices (and its rank-local tensor, when the writing job had its
// rank) against the values of the restored step, and the ranks compare
// the steps they restored. A torn or mixed restore, or ranks on different
// steps, is reported as FAIL.
//
// Lines appended to <report>, each one write(2) (atomic for short lines on
// O_APPEND), so they survive the kill:
//   pid <rank> <pid>        the rank's process, for the harness to kill
//   fresh <rank>            nothing committed yet; starts at step 1
//   resumed <rank> <s>      restored step s, every element checked
//   begin <s>               rank 0: the job is about to save step s
//   committed <s>           rank 0: the save of step s committed
//   error <rank> <ns> <why> an engine call failed at steady-clock time ns
//                           (expected once a rank was killed)
//   FAIL <rank> <why>       a check failed
#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "sharded_job.hpp"

namespace host = frugal::host;
using namespace frugal::test::sharded;

namespace {

int g_report = -1;
int g_rank = 0;

void say(const std::string& line) {
  const std::string text = line + "\n";
  if (::write(g_report, text.data(), text.size()) != static_cast<ssize_t>(text.size())) std::_Exit(4);
}

// An engine call failed: expected when a peer was killed (the harness
// compares the time with its kill's).
[[noreturn]] void call_failed(const std::string& why) {
  const auto ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
  std::string line = "error " + std::to_string(g_rank) + " " + std::to_string(ns) + " " + why;
  for (char& c : line)
    if (c == '\n') c = ' ';
  say(line);
  std::_Exit(5);
}

[[noreturn]] void failed(const std::string& why) {
  std::string line = "FAIL " + std::to_string(g_rank) + " " + why;
  for (char& c : line)
    if (c == '\n') c = ' ';
  say(line);
  std::_Exit(3);
}

void call(frugal_error* error) {
  if (error == nullptr) return;
  const auto what = outcome(error);
  call_failed(what.message);
}

constexpr int64_t kBigRows = 512;          // 512 KiB of floats over the ranks
constexpr int64_t kShardBytes = 64 << 10;  // several shards per rank

// Restores the newest checkpoint and checks it; returns its step (0: none).
uint64_t resume(frugal_ckpt_engine* engine, std::vector<Slice>& tensors) {
  for (auto& s : tensors) std::memset(s.bytes.data(), 0xA5, s.bytes.size());
  std::vector<char> metadata(256);
  size_t metadata_size = 0;
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  frugal_error* error = frugal_ckpt_restore(engine, nullptr, FRUGAL_CKPT_ALL_KINDS, metadata.data(), metadata.size(),
                                            &metadata_size, &info);
  uint64_t step = 0;
  if (error != nullptr && frugal_error_code(error) == FRUGAL_ERR_NOT_FOUND) {
    frugal_error_destroy(error);
  } else {
    call(error);
    step = info.step;
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (std::string(metadata.data(), metadata_size) != restored_metadata_of(step, g_rank, size, info.world_size))
      failed("restored " + std::string(info.name) + " carries the metadata '" +
             std::string(metadata.data(), metadata_size) + "'");
    const auto report = not_restored(engine, info);
    for (const auto& s : tensors) {
      if (!s.sliced && report.size() == 1 && report[0] == s.name) {
        // The writing job had no rank of this number: left as it was.
        if (s.bytes != std::vector<uint8_t>(s.bytes.size(), 0xA5))
          failed("rank-local '" + s.name + "' was reported not restored, but changed");
        continue;
      }
      if (const uint64_t bad = s.wrong(step); bad != 0)
        failed("restored " + std::string(info.name) + ": " + std::to_string(bad) + " of " + std::to_string(s.count()) +
               " elements of '" + s.name + "' are not those of step " + std::to_string(step));
    }
    if (report.size() > 1) failed("more than the rank-local tensor was not restored");
  }
  // Every rank must be on the same step (or all start fresh).
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<unsigned long long> steps(static_cast<size_t>(size));
  const unsigned long long mine = step;
  MPI_Allgather(&mine, 1, MPI_UNSIGNED_LONG_LONG, steps.data(), 1, MPI_UNSIGNED_LONG_LONG, MPI_COMM_WORLD);
  for (int r = 0; r < size; ++r)
    if (steps[static_cast<size_t>(r)] != mine)
      failed("restored step " + std::to_string(mine) + " but rank " + std::to_string(r) + " restored step " +
             std::to_string(steps[static_cast<size_t>(r)]));
  say(step == 0 ? "fresh " + std::to_string(g_rank) : "resumed " + std::to_string(g_rank) + " " + std::to_string(step));
  return step;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  g_report = ::open(argv[2], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (g_report < 0) return 2;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  say("pid " + std::to_string(g_rank) + " " + std::to_string(::getpid()));
  try {
    Job job(argv[1], true, kShardBytes);
    auto tensors = job_tensors(g_rank, size, kBigRows);
    register_all(job.engine.get(), tensors, true);
    for (uint64_t step = resume(job.engine.get(), tensors) + 1;; ++step) {
      for (auto& s : tensors) s.fill(step);
      const std::string metadata = metadata_of(step, g_rank);
      frugal_ckpt_save_args args{};
      args.struct_size = sizeof(args);
      args.kind = step % 3 == 0 ? FRUGAL_CKPT_FULL : FRUGAL_CKPT_HEARTBEAT;
      args.flags = step % 4 == 0 ? FRUGAL_CKPT_SAVE_WAIT : 0;
      args.step = step;
      args.metadata = metadata.data();
      args.metadata_size = metadata.size();
      if (g_rank == 0) say("begin " + std::to_string(step));
      call(frugal_ckpt_save(job.engine.get(), &args, nullptr));
      // The next step's training overwrites the memory while this one
      // persists: the checkpoint must hold the snapshot.
      for (auto& s : tensors) s.fill(step + 1);
      call(frugal_ckpt_wait(job.engine.get(), nullptr));
      if (g_rank == 0) say("committed " + std::to_string(step));
    }
  } catch (const std::exception& e) {
    call_failed(e.what());
  }
}
