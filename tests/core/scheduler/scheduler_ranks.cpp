// The scheduler across ranks (frugal_scheduler_config.comm, ABI 2.4) under
// mpirun (CMakeLists.txt):
//   scheduler_ranks agree       every rank feeds its own telemetry of the
//                               recorded run (ranks_run.hpp); every rank's
//                               decisions, reasons, ledgers and final state
//                               are byte-identical, and equal those of one
//                               process fed the job records; rank 1's
//                               preemption notice makes every rank ask for
//                               the emergency checkpoint at the same record;
//                               a refused record, ranks at other steps, a
//                               rank whose create fails, other configurations
//                               and ranks that import other states fail on
//                               every rank and change nothing
//   scheduler_ranks stall DIR   the last rank never makes its step: the
//                               others fail within the comm's deadline with
//                               the comm's error naming the exchange, and
//                               their scheduler is unchanged (DIR: marks by
//                               which the ranks wait for each other at the
//                               end, the comm being broken)
// Each rank prints "rank R: MODE passed" or its failures.
#include <mpi.h>

#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "ranks_run.hpp"

namespace host = frugal::host;
using namespace frugal::test::ranks;

namespace {

int g_failures = 0;
int g_rank = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "rank %d: FAILED: %s\n", g_rank, what.c_str());
    ++g_failures;
  }
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

struct Outcome {
  int32_t code;
  std::string message;
};
Outcome outcome(frugal_error* error) {
  Outcome result{frugal_error_code(error), error != nullptr ? frugal_error_message(error) : ""};
  frugal_error_destroy(error);
  return result;
}

// Every rank's bytes, rank by rank (plain MPI: the check does not trust
// the comm under test).
std::vector<std::string> gather_all(const std::string& mine, int size) {
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<size_t>(size));
  MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::vector<int> displs(static_cast<size_t>(size));
  int total = 0;
  for (int r = 0; r < size; ++r) {
    displs[static_cast<size_t>(r)] = total;
    total += lengths[static_cast<size_t>(r)];
  }
  std::string all(static_cast<size_t>(total), '\0');
  MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), displs.data(), MPI_CHAR, MPI_COMM_WORLD);
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r)
    out.push_back(all.substr(static_cast<size_t>(displs[static_cast<size_t>(r)]),
                             static_cast<size_t>(lengths[static_cast<size_t>(r)])));
  return out;
}

std::string as_text(const std::vector<std::byte>& blob) {
  return std::string(reinterpret_cast<const char*>(blob.data()), blob.size());
}

// Every bit of two ledgers (NaN payloads and the sign of zero included).
bool same_ledger(const frugal_cost_ledger& a, const frugal_cost_ledger& b) {
  using Bytes = std::array<unsigned char, sizeof(frugal_cost_ledger)>;
  return std::bit_cast<Bytes>(a) == std::bit_cast<Bytes>(b);
}

// Create is collective and agreed: one rank's bad option, or one rank's
// other policies, fail create on every rank.
void create_agreement(frugal_context* context, frugal_comm* comm, int rank, int size) {
  host::SchedulerPtr scheduler;
  const int last = size - 1;
  Outcome o = outcome(create_scheduler(context, comm, scheduler, {}, rank == last));
  if (rank == last)
    expect(o.code == FRUGAL_ERR_INVALID_ARGUMENT && contains(o.message, "no_such_option"),
           "the rank with the bad option gets its own error: " + o.message);
  else
    expect(o.code == FRUGAL_ERR_FAILED_PRECONDITION &&
               contains(o.message, "rank " + std::to_string(last) + " could not create its scheduler"),
           "the other ranks' create fails naming rank " + std::to_string(last) + ": " + o.message);
  expect(scheduler == nullptr, "no rank has a scheduler");

  std::vector<std::string> fewer;
  if (rank == 1) fewer = {"checkpoint_cadence", "spot_phase", "plateau_autoscaler"};
  o = outcome(create_scheduler(context, comm, scheduler, fewer));
  expect(o.code == FRUGAL_ERR_INVALID_ARGUMENT &&
             contains(o.message, "rank 1 is configured with another schedule, other policies"),
         "another configuration on rank 1 fails create on every rank: " + o.message);
  expect(scheduler == nullptr, "no rank has a scheduler after the mismatch");
}

void agree(int rank, int size) {
  auto context = make_context("comm_mpi");
  auto comm = host::make_comm(context.get(), "mpi", nullptr);
  host::check(frugal_comm_set_timeout(comm.get(), 60000));
  create_agreement(context.get(), comm.get(), rank, size);

  host::SchedulerPtr scheduler;
  host::check(create_scheduler(context.get(), comm.get(), scheduler));
  comm.reset();  // the scheduler keeps its own sub-group

  // What one process decides on the job records, and on rank 0's alone.
  const Reference reference = reference_run(context.get(), size);
  std::string rank0_alone;
  {
    host::SchedulerPtr plain;
    host::check(create_scheduler(context.get(), nullptr, plain));
    for (int i = 0; i < kRecords; ++i) (void)step(plain.get(), rank_record(i, 0, size), &rank0_alone);
  }
  expect(rank0_alone != reference.transcript, "the other ranks' telemetry changes the job's decisions or ledger");

  std::string transcript;
  int differing = 0;
  for (int i = 0; i < kRecords; ++i) {
    const frugal_telemetry mine = rank_record(i, rank, size);
    if (i == 60) {
      // Rank 1 reports a NaN loss: every rank fails the step, none books it.
      const frugal_cost_ledger before = ledger_of(scheduler.get());
      frugal_telemetry bad = mine;
      if (rank == 1) bad.flags &= ~FRUGAL_TELEMETRY_NO_LOSS, bad.loss = std::nan("");
      const StepResult r = step(scheduler.get(), bad);
      expect(r.code == FRUGAL_ERR_INVALID_ARGUMENT &&
                 contains(r.message, rank == 1 ? "telemetry.loss is nan at step 60"
                                               : "rank 1 of " + std::to_string(size) + " refused its telemetry"),
             "a NaN loss on rank 1 fails the step on every rank: " + r.message);
      expect(same_ledger(before, ledger_of(scheduler.get())), "the refused step booked nothing");
    }
    if (i == 90) {
      // The last rank is a step ahead: refused on every rank.
      frugal_telemetry ahead = mine;
      if (rank == size - 1) ++ahead.step;
      const StepResult r = step(scheduler.get(), ahead);
      expect(r.code == FRUGAL_ERR_INVALID_ARGUMENT &&
                 contains(r.message, "telemetry.step is 91 on rank " + std::to_string(size - 1) + " and 90 on rank 0"),
             "ranks at other steps fail on every rank: " + r.message);
    }
    std::string line;
    const StepResult r = step(scheduler.get(), mine, &line);
    expect(r.code == 0, "record " + std::to_string(i) + " steps: " + r.message);
    transcript += line;
    if (line != reference.lines[static_cast<size_t>(i)] && differing++ < 3)
      expect(false, "record " + std::to_string(i) + " decides as one process fed the job record:\n  here " + line +
                        "  one  " + reference.lines[static_cast<size_t>(i)]);
    if (i == kNoticeRecord - 1)
      expect(r.decision.checkpoint == FRUGAL_CKPT_NONE, "no checkpoint is asked just before the notice");
    if (i == kNoticeRecord)
      expect(r.decision.checkpoint != FRUGAL_CKPT_NONE && contains(r.reason, "preemption notice"),
             "rank 1's notice makes rank " + std::to_string(rank) + " ask for the emergency checkpoint at record " +
                 std::to_string(i) + ": '" + r.reason + "'");
  }
  expect(transcript == reference.transcript, "the whole transcript equals one process's");

  // Byte-identical on every rank: the transcripts and the states.
  const std::vector<std::byte> state = export_state(scheduler.get());
  expect(state == reference.state, "the final state equals one process's");
  const auto transcripts = gather_all(transcript, size);
  const auto states = gather_all(as_text(state), size);
  for (int r = 0; r < size; ++r) {
    expect(transcripts[static_cast<size_t>(r)] == transcript,
           "rank " + std::to_string(r) + "'s transcript is byte-identical to this rank's");
    expect(states[static_cast<size_t>(r)] == as_text(state),
           "rank " + std::to_string(r) + "'s state is byte-identical to this rank's");
  }

  // Ranks that import other states are caught at the next step, on every
  // rank, and the scheduler is failed until all import the same state.
  std::string next_line;
  const frugal_telemetry next = rank_record(kRecords, rank, size);
  expect(step(scheduler.get(), next, &next_line).code == 0, "record 200 steps");
  const std::vector<std::byte> newer = export_state(scheduler.get());
  const std::vector<std::byte>& mine_to_import = rank == size - 1 ? state : newer;
  host::check(frugal_scheduler_import_state(scheduler.get(), mine_to_import.data(), mine_to_import.size()));
  const frugal_telemetry after = rank_record(kRecords + 1, rank, size);
  StepResult r = step(scheduler.get(), after);
  expect(r.code == FRUGAL_ERR_INTERNAL && contains(r.message, "rank " + std::to_string(size - 1) + " decided") &&
             contains(r.message, "differs from rank 0's"),
         "other imported states fail the next step on every rank: " + r.message);
  r = step(scheduler.get(), after);
  expect(r.code == FRUGAL_ERR_FAILED_PRECONDITION, "the scheduler is failed on every rank: " + r.message);
  host::check(frugal_scheduler_import_state(scheduler.get(), newer.data(), newer.size()));
  std::string resumed;
  r = step(scheduler.get(), after, &resumed);
  expect(r.code == 0, "the same state imported on every rank steps again: " + r.message);
  {
    host::SchedulerPtr plain;
    host::check(create_scheduler(context.get(), nullptr, plain));
    host::check(frugal_scheduler_import_state(plain.get(), newer.data(), newer.size()));
    std::string expected;
    const double previous_wall = job_record(all_ranks(kRecords, size), 0).wall_time_s;
    (void)step(plain.get(), job_record(all_ranks(kRecords + 1, size), previous_wall), &expected);
    expect(resumed == expected, "and decides as one process that imported the same state");
  }
}

void stall(int rank, int size, const std::string& dir) {
  auto* context = new host::ContextPtr(make_context("comm_mpi"));  // never destroyed: the comm ends broken
  auto comm = host::make_comm(context->get(), "mpi", nullptr);
  host::check(frugal_comm_set_timeout(comm.get(), 1000));
  auto* scheduler = new host::SchedulerPtr();
  host::check(create_scheduler(context->get(), comm.get(), *scheduler));
  for (int i = 0; i < 5; ++i) {
    const StepResult r = step(scheduler->get(), rank_record(i, rank, size));
    expect(r.code == 0, "record " + std::to_string(i) + " steps: " + r.message);
  }
  if (rank != size - 1) {
    const std::vector<std::byte> before = export_state(scheduler->get());
    const frugal_cost_ledger ledger = ledger_of(scheduler->get());
    const auto started = std::chrono::steady_clock::now();
    StepResult r = step(scheduler->get(), rank_record(5, rank, size));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    expect(r.code == FRUGAL_ERR_DEADLINE_EXCEEDED || r.code == FRUGAL_ERR_IO,
           "a rank that never steps is the comm's error: " + std::to_string(r.code) + " " + r.message);
    expect(contains(r.message, "scheduler across " + std::to_string(size) + " ranks, rank " + std::to_string(rank) +
                                   ": telemetry all_gather at step 5: "),
           "the error names the scheduler's exchange: " + r.message);
    expect(seconds < 8.0, "the step failed within the deadline, not a hang: " + std::to_string(seconds) + " s");
    expect(same_ledger(ledger, ledger_of(scheduler->get())), "the failed step changed no ledger");
    expect(export_state(scheduler->get()) == before, "the failed step changed no state");
    r = step(scheduler->get(), rank_record(5, rank, size));
    expect(r.code == FRUGAL_ERR_FAILED_PRECONDITION, "the broken sub-group fails the next step at once: " + r.message);
  }
  // Said before any rank may end: one that ends without MPI_Finalize makes
  // mpirun end the others, so each waits (through files; MPI is broken)
  // until every rank has said its result.
  std::printf("rank %d: stall %s\n", rank, g_failures == 0 ? "passed" : "FAILED");
  std::fflush(stdout);
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  std::ofstream(fs::path(dir) / std::to_string(rank)).put('\n');
  for (int waited = 0; waited < 400; ++waited) {
    int ready = 0;
    for (int r = 0; r < size; ++r) ready += fs::exists(fs::path(dir) / std::to_string(r)) ? 1 : 0;
    if (ready == size) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::_Exit(g_failures == 0 ? 0 : 1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: scheduler_ranks agree | stall DIR\n");
    return 2;
  }
  const std::string mode = argv[1];
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  try {
    if (mode == "agree" && size >= 2)
      agree(g_rank, size);
    else if (mode == "stall" && argc == 3 && size >= 2)
      stall(g_rank, size, argv[2]);
    else
      expect(false, "unknown mode or arguments (at least 2 ranks): " + mode);
  } catch (const std::exception& e) {
    expect(false, std::string("exception: ") + e.what());
  }
  if (g_failures == 0) std::printf("rank %d: %s passed\n", g_rank, mode.c_str());
  std::fflush(stdout);
  MPI_Finalize();
  return g_failures == 0 ? 0 : 1;
}
