// The table: one row per plan with the Monte-Carlo means, the cost's p10 to
// p90 range, and a legend that says what each plan is.
#include <fmt/format.h>

#include <cmath>

#include "report.hpp"

namespace frugal::simulate {
namespace {

// 64012.3 -> "64,012": dollars and hours read better grouped.
std::string grouped(double value) {
  const double rounded = std::round(value);
  const std::string digits = fmt::format("{:.0f}", std::abs(rounded));
  std::string out = rounded < 0 ? "-" : "";
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string cost_range(const Stat& cost) { return fmt::format("{}-{}", grouped(cost.p10), grouped(cost.p90)); }

}  // namespace

const char* resource_name(int32_t resource) {
  return resource == FRUGAL_RESOURCE_RESERVED ? "reserved" : resource == FRUGAL_RESOURCE_SPOT ? "spot" : "unspecified";
}

std::string format_table(const Report& report) {
  const Job& job = *report.job;
  std::string out =
      fmt::format("job '{}': {} run{} per plan, seed {}, {}\n", job.name, report.runs, report.runs == 1 ? "" : "s",
                  report.seed, report.trace_description.empty() ? "Monte-Carlo preemptions" : report.trace_description);
  size_t name_width = 4;
  for (const auto& p : report.plans) name_width = std::max(name_width, p.plan->name.size());
  out +=
      fmt::format("{:<{}}  {:>9}  {:>17}  {:>7}  {:>8}  {:>6}  {:>7}  {:>7}  {:>8}  {:>9}\n", "plan", name_width,
                  "cost $", "cost p10-p90 $", "wall h", "GPU-h", "util %", "lost h", "stall h", "restarts", "$/loss");
  for (const auto& p : report.plans) {
    out += fmt::format("{:<{}}  {:>9}  {:>17}  {:>7.1f}  {:>8}  {:>6.1f}  {:>7.1f}  {:>7.1f}  {:>8.1f}  {:>9}\n",
                       p.plan->name, name_width, grouped(p.cost.mean), cost_range(p.cost), p.wall_h.mean,
                       grouped(p.gpu_hours.mean), 100.0 * p.utilisation.mean, p.lost_h.mean, p.stall_h.mean,
                       p.restarts.mean, grouped(p.dollars_per_loss.mean));
  }
  out += "\n";
  for (const auto& p : report.plans) {
    const PlanSpec& plan = *p.plan;
    out += fmt::format("  {}: {} node{} x {} GPUs, starts on {}{}{}\n", plan.name, plan.nodes,
                       plan.nodes == 1 ? "" : "s", job.gpus_per_node, resource_name(plan.resource),
                       plan.padding_fraction > 0 ? fmt::format(", {:.0f}% padding", 100.0 * plan.padding_fraction) : "",
                       plan.description.empty() ? "" : " - " + plan.description);
    if (p.finished != p.runs)
      out += fmt::format(
          "    {} of {} runs did not finish the work ({} stopped by a policy, {} cut at the wall-time limit)\n",
          p.runs - p.finished, p.runs, p.stopped, p.cut);
  }
  out +=
      "\nMeans over the runs. util % = useful GPU-hours (the plan's tokens at one node's per-GPU rate)\n"
      "/ GPU-hours held (nodes x GPUs x wall time); lost h = work undone by preemptions plus downtime;\n"
      "restarts = preemptions + moves between capacity classes or node counts; $/loss = dollars per\n"
      "unit of (first - best smoothed) training loss.\n";
  return out;
}

}  // namespace frugal::simulate
