#include "summary.hpp"

#include <algorithm>
#include <cmath>

namespace frugal::simulate {

Stat make_stat(std::vector<double> values) {
  Stat s;
  if (values.empty()) return s;
  double sum = 0.0;
  for (const double v : values) sum += v;  // in run order: deterministic
  s.mean = sum / static_cast<double>(values.size());
  std::sort(values.begin(), values.end());
  const auto at = [&](double q) {
    const double pos = q * static_cast<double>(values.size() - 1);
    const size_t lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(lo + 1, values.size() - 1);
    return values[lo] + (pos - static_cast<double>(lo)) * (values[hi] - values[lo]);
  };
  s.p10 = at(0.1);
  s.p50 = at(0.5);
  s.p90 = at(0.9);
  s.min = values.front();
  s.max = values.back();
  return s;
}

namespace {

// Each statistic of PlanSummary and the per-run value it is made of.
struct Metric {
  Stat PlanSummary::*stat;
  double (*value)(const RunResult&);
};

constexpr Metric kMetrics[] = {
    {&PlanSummary::cost, [](const RunResult& r) { return r.dollars; }},
    {&PlanSummary::wall_h, [](const RunResult& r) { return r.wall_s / 3600.0; }},
    {&PlanSummary::gpu_hours, [](const RunResult& r) { return r.fleet_gpu_hours; }},
    {&PlanSummary::utilisation,
     [](const RunResult& r) { return r.fleet_gpu_hours > 0.0 ? r.useful_gpu_hours / r.fleet_gpu_hours : 0.0; }},
    {&PlanSummary::lost_h, [](const RunResult& r) { return r.lost_s / 3600.0; }},
    {&PlanSummary::stall_h, [](const RunResult& r) { return r.stall_s / 3600.0; }},
    {&PlanSummary::restarts, [](const RunResult& r) { return static_cast<double>(r.preemptions + r.moves); }},
    {&PlanSummary::preemptions, [](const RunResult& r) { return static_cast<double>(r.preemptions); }},
    {&PlanSummary::checkpoints,
     [](const RunResult& r) { return static_cast<double>(r.checkpoints_full + r.checkpoints_heartbeat); }},
    {&PlanSummary::dollars_per_loss, [](const RunResult& r) { return r.has_ledger ? r.ledger.dollars_per_loss : 0.0; }},
    {&PlanSummary::spot_share, [](const RunResult& r) { return r.dollars > 0.0 ? r.spot_dollars / r.dollars : 0.0; }},
    {&PlanSummary::final_loss, [](const RunResult& r) { return r.loss_last; }},
};

}  // namespace

PlanSummary summarize(const PlanSpec& plan, const std::vector<RunResult>& runs) {
  PlanSummary s;
  s.plan = &plan;
  s.runs = runs.size();
  for (const RunResult& r : runs) {
    s.finished += r.finished ? 1 : 0;
    s.stopped += r.stop_reason != 0 ? 1 : 0;
    s.cut += r.cut ? 1 : 0;
  }
  std::vector<double> values(runs.size());
  for (const Metric& metric : kMetrics) {
    for (size_t i = 0; i < runs.size(); ++i) values[i] = metric.value(runs[i]);
    s.*metric.stat = make_stat(values);
  }
  return s;
}

}  // namespace frugal::simulate
