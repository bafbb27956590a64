// The JSON report: a top-level "plans" list, each plan with its mean
// "cost" and the other means flat (for scripts), and every statistic's
// mean, p10, p50, p90, min and max under "stats".
#include <fmt/format.h>

#include <cmath>

#include "../json_writer.hpp"
#include "report.hpp"

namespace frugal::simulate {
namespace {

// Shortest round-trip form; JSON has no NaN or infinity.
std::string number(double v) { return std::isfinite(v) ? fmt::format("{}", v) : "null"; }

std::string stat_json(const Stat& s) {
  return fmt::format("{{\"mean\": {}, \"p10\": {}, \"p50\": {}, \"p90\": {}, \"min\": {}, \"max\": {}}}", number(s.mean),
                     number(s.p10), number(s.p50), number(s.p90), number(s.min), number(s.max));
}

std::string trace_json(const Trace* trace) {
  if (trace == nullptr) return "null";
  return fmt::format(
      "{{\"source\": {}, \"format\": {}, \"selection\": {}, \"segments\": {}, \"period_h\": {}, "
      "\"has_availability\": {}, \"has_prices\": {}, \"available_share\": {}, \"mean_price\": {}}}",
      cli::json_string(trace->source()), cli::json_string(trace->format()), cli::json_string(trace->selection()),
      trace->segment_count(), number(trace->period_s() / 3600.0), trace->has_availability() ? "true" : "false",
      trace->has_prices() ? "true" : "false", number(trace->available_share()),
      trace->has_prices() ? number(trace->period_mean_price()) : "null");
}

std::string plan_json(const Job& job, const PlanSummary& p) {
  const PlanSpec& plan = *p.plan;
  std::string out = fmt::format(
      "    {{\"name\": {}, \"description\": {}, \"resource\": \"{}\", \"nodes\": {}, \"gpus\": {}, "
      "\"padding_fraction\": {},\n"
      "     \"cost\": {}, \"wall_h\": {}, \"gpu_hours\": {}, \"utilisation\": {}, \"lost_h\": {}, \"stall_h\": {}, "
      "\"restarts\": {}, \"preemptions\": {}, \"checkpoints\": {}, \"dollars_per_loss\": {}, \"spot_share\": {}, "
      "\"final_loss\": {},\n"
      "     \"runs\": {}, \"finished_runs\": {}, \"stopped_runs\": {}, \"cut_runs\": {},\n"
      "     \"stats\": {{",
      cli::json_string(plan.name), cli::json_string(plan.description), resource_name(plan.resource), plan.nodes,
      plan.nodes * job.gpus_per_node, number(plan.padding_fraction), number(p.cost.mean), number(p.wall_h.mean),
      number(p.gpu_hours.mean), number(p.utilisation.mean), number(p.lost_h.mean), number(p.stall_h.mean),
      number(p.restarts.mean), number(p.preemptions.mean), number(p.checkpoints.mean), number(p.dollars_per_loss.mean),
      number(p.spot_share.mean), number(p.final_loss.mean), p.runs, p.finished, p.stopped, p.cut);
  const std::pair<const char*, const Stat*> stats[] = {
      {"cost", &p.cost},           {"wall_h", &p.wall_h},           {"gpu_hours", &p.gpu_hours},
      {"utilisation", &p.utilisation}, {"lost_h", &p.lost_h},       {"stall_h", &p.stall_h},
      {"restarts", &p.restarts},   {"preemptions", &p.preemptions}, {"checkpoints", &p.checkpoints},
      {"dollars_per_loss", &p.dollars_per_loss}, {"spot_share", &p.spot_share}, {"final_loss", &p.final_loss}};
  bool first = true;
  for (const auto& [name, stat] : stats) {
    out += fmt::format("{}\n       \"{}\": {}", first ? "" : ",", name, stat_json(*stat));
    first = false;
  }
  return out + "}}";
}

}  // namespace

std::string format_json(const Report& report) {
  const Job& job = *report.job;
  std::string out = fmt::format("{{\n  \"job\": {},\n  \"source\": {},\n  \"runs\": {},\n  \"seed\": {},\n  \"trace\": {},\n  \"plans\": [\n",
                                cli::json_string(job.name), cli::json_string(job.source), report.runs, report.seed,
                                trace_json(report.trace));
  for (size_t i = 0; i < report.plans.size(); ++i)
    out += plan_json(job, report.plans[i]) + (i + 1 < report.plans.size() ? ",\n" : "\n");
  return out + "  ]\n}\n";
}

}  // namespace frugal::simulate
