// A recorded run of a job of several ranks for the scheduler across ranks
// (frugal_scheduler_config.comm, ABI 2.4), shared by the one-process test
// (test_scheduler_ranks.cpp, comm_local) and the program run under mpirun
// (scheduler_ranks.cpp): every rank's telemetry, record by record (each
// rank trains other tokens, sees another loss, another clock and stall); the
// job's record as frugal/scheduler.h defines it, computed here on its own;
// the scheduler (the policy_cost policies and a cosine schedule); and a
// transcript of decisions and ledgers, compared byte for byte. No Catch2:
// the MPI program has its own main.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frugal/frugal.h"
#include "frugal/sdk/host.hpp"

namespace frugal::test::ranks {

inline constexpr int kRecords = 200;
// Rank 1 (when there is one) gets a 30 s preemption notice at this record
// and keeps it, shrinking, until the job is preempted.
inline constexpr int kNoticeRank = 1;
inline constexpr int kNoticeRecord = 120;
// The first record after the preemption: every rank flags
// FRUGAL_TELEMETRY_RESTARTED, resumed from the step-100 checkpoint.
inline constexpr int kRestartRecord = 124;

// Record `record` (0 .. kRecords - 1) of `rank` in a job of `size` ranks.
// Without `notice`, no rank ever gets the preemption notice.
frugal_telemetry rank_record(int record, int rank, int size, bool notice = true);

// Every rank's record `record`, rank 0 first.
std::vector<frugal_telemetry> all_ranks(int record, int size, bool notice = true);

// The job's record from every rank's record, by the rules of
// frugal/scheduler.h ("Across ranks"): written here from the header, not
// from the core's code. `previous_wall` is the previous job record's clock
// (0 before the first).
frugal_telemetry job_record(const std::vector<frugal_telemetry>& ranks, double previous_wall);

// A context with policy_cost and schedule_lr loaded, plus `comm_plugin`
// ("comm_local", "comm_mpi") unless empty.
host::ContextPtr make_context(const std::string& comm_plugin);

// The scheduler of the run: schedule "cosine", policies
// checkpoint_cadence, spot_phase, plateau_autoscaler, early_stop; over
// `comm` (NULL: one process). `policies` replaces the policy names (the
// options of a policy not named are dropped), `bad_option` adds an option
// no policy knows. Returns the create's error (NULL: created into `out`).
frugal_error* create_scheduler(frugal_context* context, frugal_comm* comm, host::SchedulerPtr& out,
                               const std::vector<std::string>& policies = {}, bool bad_option = false);

// One line for a decision and the ledger after it: every field's bits in
// hex, then the reason.
std::string transcript_line(const frugal_decision& decision, const frugal_cost_ledger& ledger);

// Steps `scheduler` with `t`; on success appends the transcript line to
// `transcript` (if not NULL) and returns code 0. `decision` (if not NULL)
// receives the decision (its reason pointer is the scheduler's).
struct StepResult {
  int32_t code = 0;
  std::string message;
  frugal_decision decision{};
  std::string reason;
};
StepResult step(frugal_scheduler* scheduler, const frugal_telemetry& t, std::string* transcript = nullptr);

frugal_cost_ledger ledger_of(const frugal_scheduler* scheduler);
std::vector<std::byte> export_state(frugal_scheduler* scheduler);

// The run as one process sees it: a scheduler without a comm fed the job
// records of `size` ranks (records [0, kRecords)), its transcript and its
// state at the end.
struct Reference {
  std::string transcript;
  std::vector<std::string> lines;
  std::vector<std::byte> state;
};
Reference reference_run(frugal_context* context, int size, bool notice = true);

}  // namespace frugal::test::ranks
