// compute_run_figures: one run's figures from its metrics.
#include <algorithm>
#include <charconv>
#include <set>

#include "curves.hpp"
#include "expert_balance.hpp"
#include "preemptions.hpp"
#include "report.hpp"

namespace frugal_demo {
namespace {

std::optional<double> run_info_number(const RunMetrics& run, std::string_view key) {
  for (const auto& [k, v] : run.run_info) {
    if (k != key) continue;
    double value = 0.0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
    if (ec == std::errc() && end == v.data() + v.size()) return value;
  }
  return std::nullopt;
}

double mean_loss(std::vector<StepRecord>::const_iterator first, std::vector<StepRecord>::const_iterator last) {
  double sum = 0.0;
  for (auto it = first; it != last; ++it) sum += it->loss;
  return first == last ? 0.0 : sum / static_cast<double>(last - first);
}

void tokens_and_losses(const RunMetrics& run, RunFigures& f) {
  const auto history = step_history(run);
  for (const auto& s : history) {
    f.real_tokens += s.real_tokens;
    f.slots += s.slots;
  }
  for (const auto& s : run.steps) f.processed_tokens += s.real_tokens;
  f.steps = history.empty() ? 0 : history.back().step;
  f.padding_waste = f.slots > 0 ? 1.0 - static_cast<double>(f.real_tokens) / static_cast<double>(f.slots) : 0.0;
  const std::size_t window = std::min(kLossWindow, history.size());
  f.train_loss_start = mean_loss(history.begin(), history.begin() + static_cast<std::ptrdiff_t>(window));
  f.train_loss_end = mean_loss(history.end() - static_cast<std::ptrdiff_t>(window), history.end());
}

void clock_and_rates(const RunMetrics& run, RunFigures& f) {
  std::set<int> attempts;
  for (const auto& s : run.steps) {
    f.clock_s = std::max(f.clock_s, s.clock_s);
    attempts.insert(s.attempt);
  }
  for (const auto& e : run.events) f.clock_s = std::max(f.clock_s, e.clock_s);
  f.attempts = static_cast<int>(attempts.size());
  if (f.clock_s > 0.0) f.tokens_per_s = static_cast<double>(f.real_tokens) / f.clock_s;
  f.time_scale = run_info_number(run, "time_scale");
  if (f.time_scale && *f.time_scale > 0.0 && f.clock_s > 0.0)
    f.tokens_per_real_s = static_cast<double>(f.real_tokens) / (f.clock_s / *f.time_scale);
}

void evals(const RunMetrics& run, RunFigures& f) {
  const auto curve = eval_loss_curve(run);
  if (curve.empty()) return;
  f.eval_loss_first = curve.front().y;
  f.eval_loss_final = curve.back().y;
  f.eval_clock_final_s = curve.back().x;
}

void checkpoints(const RunMetrics& run, RunFigures& f) {
  for (const auto& s : run.steps) {
    if (s.checkpoint == "full") ++f.checkpoints_full;
    if (s.checkpoint == "heartbeat") ++f.checkpoints_heartbeat;
    f.stall_total_s += s.stall_s;
  }
  const auto saves = f.checkpoints_full + f.checkpoints_heartbeat;
  if (saves > 0) f.stall_mean_s = f.stall_total_s / static_cast<double>(saves);
}

void preemptions(const RunMetrics& run, RunFigures& f) {
  for (const auto& e : run.events) {
    if (e.event == "preempt_notice") ++f.preempt_notices;
    if (e.event == "killed") ++f.kills;
    if (e.event == "restart") ++f.restarts;
    if (e.event == "emergency_save") ++f.emergency_saves;
  }
  f.preemptions = find_preemptions(run);
  if (!f.preemptions.empty()) {
    double steps = 0.0, seconds = 0.0;
    for (const auto& p : f.preemptions) {
      steps += static_cast<double>(p.steps_lost);
      seconds += p.seconds_lost;
    }
    const auto n = static_cast<double>(f.preemptions.size());
    f.mean_steps_lost = steps / n;
    f.mean_seconds_lost = seconds / n;
  }
  f.resume = check_resumes(run);
}

void dollars(const RunMetrics& run, RunFigures& f) {
  f.has_ledger = run.has_ledger;
  if (run.has_ledger) {
    f.dollars = run.ledger;
  } else {
    // Before the ledger is written: the last total the steps logged.
    const auto curve = dollars_curve(run);
    f.dollars.dollars = curve.back().y;
  }
}

void experts(const RunMetrics& run, RunFigures& f) {
  const auto balance = expert_balance(run.experts);
  f.experts_step = balance.step;
  f.expert_balance = balance.layers;
  if (balance.layers.empty()) return;
  double worst = 0.0, cv = 0.0;
  for (const auto& l : balance.layers) {
    worst = std::max(worst, l.max_over_mean);
    cv += l.cv;
  }
  f.worst_max_over_mean = worst;
  f.mean_cv = cv / static_cast<double>(balance.layers.size());
}

}  // namespace

RunFigures compute_run_figures(const RunMetrics& run, std::string name) {
  RunFigures f;
  f.name = std::move(name);
  f.dir = run.dir;
  f.run_info = run.run_info;
  tokens_and_losses(run, f);
  clock_and_rates(run, f);
  evals(run, f);
  checkpoints(run, f);
  preemptions(run, f);
  dollars(run, f);
  experts(run, f);
  return f;
}

}  // namespace frugal_demo
