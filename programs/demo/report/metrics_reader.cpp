// read_run_metrics: the run directory's CSV files into RunMetrics.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "csv_table.hpp"
#include "metrics.hpp"

namespace frugal_demo {
namespace {

void read_steps(const std::filesystem::path& dir, std::vector<StepRecord>& steps) {
  const auto file = dir / kStepsFile;
  const auto t = CsvTable::read(file, {"attempt", "step", "clock_s", "real_tokens", "slots", "loss", "aux_loss", "lr",
                                       "resource", "price_per_node_hour", "nodes", "dollars", "checkpoint", "stall_s"});
  if (!t) throw std::runtime_error(fmt::format("{}: missing: not a demo run directory", file.string()));
  for (const auto& row : t->rows()) {
    StepRecord r;
    r.attempt = t->index(row, "attempt");
    r.step = t->integer(row, "step");
    r.clock_s = t->number(row, "clock_s");
    r.real_tokens = t->integer(row, "real_tokens");
    r.slots = t->integer(row, "slots");
    r.loss = t->number(row, "loss", false);
    r.aux_loss = t->number(row, "aux_loss", false);
    r.lr = t->number(row, "lr");
    r.resource = t->choice(row, "resource", {"spot", "reserved"});
    r.price_per_node_hour = t->number(row, "price_per_node_hour");
    r.nodes = t->index(row, "nodes");
    r.dollars = t->number(row, "dollars");
    r.checkpoint = t->choice(row, "checkpoint", {"", "heartbeat", "full"});
    r.stall_s = t->number(row, "stall_s");
    if (r.step < 1 || r.real_tokens < 0 || r.slots < r.real_tokens)
      throw std::runtime_error(
          fmt::format("{}:{}: need step >= 1 and 0 <= real_tokens <= slots", file.string(), row.line));
    steps.push_back(std::move(r));
  }
}

void read_evals(const std::filesystem::path& dir, RunMetrics& m) {
  const auto t = CsvTable::read(dir / kEvalFile, {"attempt", "step", "clock_s", "eval_loss"});
  if (!t) return;
  for (const auto& row : t->rows())
    m.evals.push_back(EvalRecord{t->index(row, "attempt"), t->integer(row, "step"), t->number(row, "clock_s"),
                                 t->number(row, "eval_loss", false)});
}

void read_events(const std::filesystem::path& dir, RunMetrics& m) {
  const auto t = CsvTable::read(dir / kEventsFile, {"clock_s", "attempt", "event", "step", "detail"});
  if (!t) return;
  for (const auto& row : t->rows())
    m.events.push_back(EventRecord{t->number(row, "clock_s"), t->index(row, "attempt"), t->text(row, "event"),
                                   t->integer(row, "step"), t->text(row, "detail")});
}

void read_experts(const std::filesystem::path& dir, RunMetrics& m) {
  const auto file = dir / kExpertsFile;
  const auto t = CsvTable::read(file, {"step", "layer", "expert", "load"});
  if (!t) return;
  for (const auto& row : t->rows())
    m.experts.push_back(ExpertLoadRecord{t->integer(row, "step"), t->index(row, "layer"), t->index(row, "expert"),
                                         t->number(row, "load")});
}

void read_resumes(const std::filesystem::path& dir, RunMetrics& m) {
  const auto t =
      CsvTable::read(dir / kResumeFile, {"attempt", "restored_step", "replayed_step", "loss_before", "loss_after"});
  if (!t) return;
  for (const auto& row : t->rows())
    m.resumes.push_back(ResumeRecord{t->index(row, "attempt"), t->integer(row, "restored_step"),
                                     t->integer(row, "replayed_step"), t->number(row, "loss_before", false),
                                     t->number(row, "loss_after", false)});
}

void read_ledger(const std::filesystem::path& dir, RunMetrics& m) {
  const auto t = CsvTable::read(dir / kLedgerFile, {"key", "value"});
  if (!t) return;
  m.has_ledger = true;
  for (const auto& row : t->rows()) m.ledger_values[t->text(row, "key")] = t->number(row, "value");
  const auto get = [&](const char* key) {
    const auto it = m.ledger_values.find(key);
    return it == m.ledger_values.end() ? 0.0 : it->second;
  };
  auto& l = m.ledger;
  l.dollars = get("dollars");
  l.spot_dollars = get("spot_dollars");
  l.reserved_dollars = get("reserved_dollars");
  l.productive_dollars = get("productive_dollars");
  l.stall_dollars = get("stall_dollars");
  l.lost_dollars = get("lost_dollars");
  l.wall_s = get("wall_s");
  l.productive_s = get("productive_s");
  l.stall_s = get("stall_s");
  l.lost_s = get("lost_s");
  l.restarts = static_cast<std::int64_t>(get("restarts"));
  l.checkpoints_full = static_cast<std::int64_t>(get("checkpoints_full"));
  l.checkpoints_heartbeat = static_cast<std::int64_t>(get("checkpoints_heartbeat"));
}

void read_run_info(const std::filesystem::path& dir, RunMetrics& m) {
  const auto t = CsvTable::read(dir / kRunInfoFile, {"key", "value"});
  if (!t) return;
  for (const auto& row : t->rows()) {
    std::string key = t->text(row, "key"), value = t->text(row, "value");
    auto it = std::find_if(m.run_info.begin(), m.run_info.end(), [&](const auto& kv) { return kv.first == key; });
    if (it == m.run_info.end())
      m.run_info.emplace_back(std::move(key), std::move(value));
    else
      it->second = std::move(value);
  }
}

}  // namespace

std::vector<StepRecord> read_step_records(const std::filesystem::path& run_dir) {
  std::vector<StepRecord> steps;
  read_steps(run_dir, steps);
  return steps;
}

RunMetrics read_run_metrics(const std::filesystem::path& run_dir) {
  RunMetrics m;
  m.dir = run_dir;
  read_steps(run_dir, m.steps);
  read_evals(run_dir, m);
  read_events(run_dir, m);
  read_experts(run_dir, m);
  read_resumes(run_dir, m);
  read_ledger(run_dir, m);
  read_run_info(run_dir, m);
  return m;
}

}  // namespace frugal_demo
