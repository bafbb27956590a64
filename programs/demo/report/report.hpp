// The demo's report: every figure of the baseline and the frugal run, and
// frugal against the baseline; shown as a terminal table, report.json and
// report.svg. Figures that a run's files cannot give are empty optionals
// (JSON null, "-" in the table).
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "metrics.hpp"

namespace frugal_demo {

// One preemption: an attempt that got a notice or was killed.
struct Preemption {
  int attempt = 0;
  std::optional<double> notice_clock_s;       // preempt_notice, when one came
  double end_clock_s = 0.0;                   // killed event (else the attempt's last record)
  std::string signal;                         // killed event's detail ("" when none)
  std::int64_t last_step = 0;                 // last step the attempt finished
  std::int64_t checkpoint_step = 0;           // the state the next attempt starts from
  double checkpoint_clock_s = 0.0;            // when that step was logged
  std::int64_t steps_lost = 0;                // last_step - checkpoint_step
  double seconds_lost = 0.0;                  // end_clock_s - checkpoint_clock_s
  std::optional<std::int64_t> restored_step;  // the next attempt's resume event
};

// Did the resumed attempts continue where the checkpoint left off?
struct ResumeCheck {
  std::size_t replayed_steps = 0;            // rows of resume.csv
  std::optional<double> max_abs_loss_diff;   // max |loss_before - loss_after|
  std::vector<std::int64_t> restored_steps;  // from resume events
  bool exact = false;                        // replayed at least one step, all losses equal
  bool from_checkpointed_step = false;       // every restored step had a checkpoint saved at it
};

// Expert load balance of one MoE layer at the last step experts.csv has.
struct LayerBalance {
  int layer = 0;
  int experts = 0;
  double max_over_mean = 0.0;  // 1 = perfectly even
  double cv = 0.0;             // coefficient of variation: population stddev / mean
};

struct RunFigures {
  std::string name;  // "baseline" or "frugal"
  std::filesystem::path dir;
  std::int64_t steps = 0;  // the last step reached
  int attempts = 0;        // processes that logged a step
  // Tokens of the run's own history: each step once (a replayed step
  // counts as its last attempt logged it).
  std::int64_t real_tokens = 0;
  std::int64_t slots = 0;
  std::int64_t processed_tokens = 0;  // every logged step, replays included
  double padding_waste = 0.0;         // 1 - real_tokens / slots
  double clock_s = 0.0;               // job clock at the end (last step or event)
  double tokens_per_s = 0.0;          // real_tokens / clock_s (downtime and replays cost time)
  std::optional<double> time_scale;   // run.csv: job-clock seconds per real second
  std::optional<double> tokens_per_real_s;
  // Training loss: mean of the first and of the last kLossWindow steps.
  double train_loss_start = 0.0;
  double train_loss_end = 0.0;
  std::optional<double> eval_loss_first, eval_loss_final;
  std::optional<double> eval_clock_final_s;
  std::optional<double> eval_loss_at_equal_time;  // at Report::equal_time_clock_s
  std::int64_t checkpoints_full = 0, checkpoints_heartbeat = 0;
  std::int64_t emergency_saves = 0;
  double stall_total_s = 0.0;
  std::optional<double> stall_mean_s;  // per checkpoint
  std::int64_t preempt_notices = 0, kills = 0, restarts = 0;
  std::vector<Preemption> preemptions;
  std::optional<double> mean_steps_lost, mean_seconds_lost;  // per preemption
  ResumeCheck resume;
  bool has_ledger = false;
  LedgerTotals dollars;  // ledger.csv (else dollars from the last step)
  std::optional<std::int64_t> experts_step;
  std::vector<LayerBalance> expert_balance;
  std::optional<double> worst_max_over_mean, mean_cv;
  std::vector<std::pair<std::string, std::string>> run_info;
};

struct Savings {
  std::optional<double> dollars_ratio;  // frugal / baseline
  double dollars_saved = 0.0;           // baseline - frugal
  std::optional<double> tokens_per_s_ratio;
  double padding_waste_delta = 0.0;                     // frugal - baseline (fraction)
  std::optional<double> eval_loss_delta_at_equal_time;  // frugal - baseline
  // The baseline's final eval loss, and when / for how much frugal's eval
  // curve first reached it (linear between evals; dollars linear between
  // logged steps). Empty when frugal never reached it.
  std::optional<double> target_loss;
  std::optional<double> frugal_clock_to_target_s;
  std::optional<double> frugal_dollars_to_target;
  std::optional<double> baseline_dollars_to_target;  // dollars at the baseline's final eval
  std::optional<double> dollars_to_target_ratio;     // frugal / baseline
};

inline constexpr std::size_t kLossWindow = 5;

struct Report {
  RunFigures baseline, frugal;
  // Equal wall time: the shorter run's final job clock. Each run's eval
  // loss there is linear between the evals around it, held flat outside
  // the evals' clock range.
  double equal_time_clock_s = 0.0;
  Savings savings;
};

Report compute_report(const RunMetrics& baseline, const RunMetrics& frugal);
// One run's figures; eval_loss_at_equal_time is left empty.
RunFigures compute_run_figures(const RunMetrics& run, std::string name);

void print_report_table(const Report& report, std::FILE* out);
void write_report_json(const Report& report, const std::filesystem::path& file);
void write_report_svg(const RunMetrics& baseline, const RunMetrics& frugal, const Report& report,
                      const std::filesystem::path& file);

}  // namespace frugal_demo
