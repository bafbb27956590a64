// The JSON report: a top-level "plans" list, each plan with its mean
// "cost" and the other means flat (for scripts), and every statistic's
// mean, p10, p50, p90, min and max under "stats".
#include "json_text.hpp"
#include "report.hpp"

namespace frugal::simulate {
namespace {

using json::Json;

Json stat_json(const Stat& s) {
  return {{"mean", s.mean}, {"p10", s.p10}, {"p50", s.p50}, {"p90", s.p90}, {"min", s.min}, {"max", s.max}};
}

Json trace_json(const Trace* trace) {
  if (trace == nullptr) return nullptr;
  return {{"source", trace->source()},
          {"format", trace->format()},
          {"selection", trace->selection()},
          {"segments", trace->segment_count()},
          {"period_h", trace->period_s() / 3600.0},
          {"has_availability", trace->has_availability()},
          {"has_prices", trace->has_prices()},
          {"available_share", trace->available_share()},
          {"mean_price", trace->has_prices() ? Json(trace->period_mean_price()) : Json(nullptr)}};
}

Json plan_json(const Job& job, const PlanSummary& p) {
  const PlanSpec& plan = *p.plan;
  const std::pair<const char*, const Stat*> stats[] = {{"cost", &p.cost},
                                                       {"wall_h", &p.wall_h},
                                                       {"gpu_hours", &p.gpu_hours},
                                                       {"utilisation", &p.utilisation},
                                                       {"lost_h", &p.lost_h},
                                                       {"stall_h", &p.stall_h},
                                                       {"restarts", &p.restarts},
                                                       {"preemptions", &p.preemptions},
                                                       {"checkpoints", &p.checkpoints},
                                                       {"dollars_per_loss", &p.dollars_per_loss},
                                                       {"spot_share", &p.spot_share},
                                                       {"final_loss", &p.final_loss}};
  Json out = {
      {"name", plan.name},   {"description", plan.description},        {"resource", resource_name(plan.resource)},
      {"nodes", plan.nodes}, {"gpus", plan.nodes * job.gpus_per_node}, {"padding_fraction", plan.padding_fraction}};
  // The means flat, for scripts; then the counts and every statistic.
  for (const auto& [name, stat] : stats) out[name] = stat->mean;
  out["runs"] = p.runs;
  out["finished_runs"] = p.finished;
  out["stopped_runs"] = p.stopped;
  out["cut_runs"] = p.cut;
  Json& all = out["stats"] = Json::object();
  for (const auto& [name, stat] : stats) all[name] = stat_json(*stat);
  return out;
}

}  // namespace

std::string format_json(const Report& report) {
  const Job& job = *report.job;
  Json plans = Json::array();
  for (const auto& plan : report.plans) plans.push_back(plan_json(job, plan));
  const Json out = {{"job", job.name},
                    {"source", job.source},
                    {"runs", report.runs},
                    {"seed", report.seed},
                    {"trace", trace_json(report.trace)},
                    {"plans", std::move(plans)}};
  return json::json_text(out) + "\n";
}

}  // namespace frugal::simulate
