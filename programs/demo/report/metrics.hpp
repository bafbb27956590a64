// The metrics a demo run leaves in its directory (OUT/baseline/,
// OUT/frugal/): one record type per CSV file, and everything read back.
// Every trainer process appends to the same files, so a run's files hold
// all its attempts; a resumed attempt logs again the steps it replays.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace frugal_demo {

// File names inside a run directory.
inline constexpr const char* kStepsFile = "steps.csv";
inline constexpr const char* kEvalFile = "eval.csv";
inline constexpr const char* kEventsFile = "events.csv";
inline constexpr const char* kExpertsFile = "experts.csv";
inline constexpr const char* kLedgerFile = "ledger.csv";
inline constexpr const char* kResumeFile = "resume.csv";
inline constexpr const char* kRunInfoFile = "run.csv";

// steps.csv: one optimizer step of one attempt.
struct StepRecord {
  int attempt = 0;               // 0 for the first process, +1 per restart
  std::int64_t step = 0;         // the optimizer step just done, 1-based
  double clock_s = 0.0;          // job clock: seconds since the run's first start
  std::int64_t real_tokens = 0;  // tokens of text in this step's batch
  std::int64_t slots = 0;        // token slots of the batch (padding included)
  double loss = 0.0;
  double aux_loss = 0.0;  // router load-balancing loss (0 for dense)
  double lr = 0.0;
  std::string resource = "reserved";  // "spot" or "reserved"
  double price_per_node_hour = 0.0;
  int nodes = 1;
  double dollars = 0.0;    // the scheduler ledger's total so far
  std::string checkpoint;  // "", "heartbeat" or "full" saved at this step
  double stall_s = 0.0;    // training stall of that save (job clock)
};

// eval.csv: held-out loss.
struct EvalRecord {
  int attempt = 0;
  std::int64_t step = 0;
  double clock_s = 0.0;
  double eval_loss = 0.0;
};

// events.csv: start, resume (step = restored step, detail = checkpoint
// name), preempt_notice, emergency_save, killed (detail = signal name),
// restart, checkpoint (detail = name), finish.
struct EventRecord {
  double clock_s = 0.0;
  int attempt = 0;
  std::string event;
  std::int64_t step = 0;
  std::string detail;
};

// experts.csv: tokens routed to one expert of one layer (at every eval).
struct ExpertLoadRecord {
  std::int64_t step = 0;
  int layer = 0;
  int expert = 0;
  double load = 0.0;
};

// resume.csv: a step a resumed process recomputed, with the loss the
// earlier attempt logged for it and the loss it got now.
struct ResumeRecord {
  int attempt = 0;
  std::int64_t restored_step = 0;
  std::int64_t replayed_step = 0;
  double loss_before = 0.0;
  double loss_after = 0.0;
};

// ledger.csv: the scheduler ledger's totals at the end of the run.
struct LedgerTotals {
  double dollars = 0.0;
  double spot_dollars = 0.0;
  double reserved_dollars = 0.0;
  double productive_dollars = 0.0;
  double stall_dollars = 0.0;
  double lost_dollars = 0.0;
  double wall_s = 0.0;
  double productive_s = 0.0;
  double stall_s = 0.0;
  double lost_s = 0.0;
  std::int64_t restarts = 0;
  std::int64_t checkpoints_full = 0;
  std::int64_t checkpoints_heartbeat = 0;
};

// Everything one run directory holds, rows in file order.
struct RunMetrics {
  std::filesystem::path dir;
  std::vector<StepRecord> steps;
  std::vector<EvalRecord> evals;
  std::vector<EventRecord> events;
  std::vector<ExpertLoadRecord> experts;
  std::vector<ResumeRecord> resumes;
  bool has_ledger = false;  // ledger.csv present (written when the run ends)
  LedgerTotals ledger;
  // ledger.csv as written, keys included that LedgerTotals does not name.
  std::map<std::string, double> ledger_values;
  // run.csv in first-written order; a key written again keeps its last value.
  std::vector<std::pair<std::string, std::string>> run_info;
};

// Reads a run directory. steps.csv must exist; the other files are
// optional. A final line without its newline (a process killed while
// writing it) is skipped; a malformed complete line throws
// std::runtime_error naming file:line and the column.
RunMetrics read_run_metrics(const std::filesystem::path& run_dir);

// steps.csv alone, with the same rules: what a supervisor polling a live
// worker needs, without re-reading the run's other files.
std::vector<StepRecord> read_step_records(const std::filesystem::path& run_dir);

}  // namespace frugal_demo
