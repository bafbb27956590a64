#include "event_budget.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "input_error.hpp"
#include "job_reader.hpp"
#include "option_values.hpp"

namespace frugal::simulate {
namespace {

// The smallest positive value any of the plan's policies sets for a
// checkpoint_cadence timer option, or 0 when none does.
double cadence_option(const PlanSpec& plan, const char* name) {
  double value = 0.0;
  for (const auto& policy : plan.policies) {
    const OptionValue* option = find_option(policy.options, name);
    if (option == nullptr) continue;
    const double v =
        option->type == OptionValue::Type::kInt ? static_cast<double>(option->int_value) : option->double_value;
    if (v > 0.0) value = value > 0.0 ? std::min(value, v) : v;
  }
  return value;
}

std::string work_text(const Job& job, const PlanSpec& plan, const EventEstimate& e) {
  return fmt::format(
      "{:.3g} tokens (the work / (1 - padding_fraction)) at {} nodes x {} GPUs x {:.3g} tokens/s "
      "(throughput.tokens_per_gpu_s) take {:.3g} s of job clock",
      plan_tokens(job, plan), plan.nodes, job.gpus_per_node, job.tokens_per_gpu_s, e.horizon_s);
}

std::string breakdown(const Job& job, const EventEstimate& e, const Trace* trace) {
  std::string out = fmt::format("{:.3g} records at telemetry_interval_s {:g}", e.ticks, job.telemetry_interval_s);
  if (e.preemptions > 0.0) {
    out += trace != nullptr && trace->has_availability()
               ? fmt::format(", {:.3g} preemptions from the trace (period {:.3g} s)", e.preemptions, trace->period_s())
               : fmt::format(", {:.3g} preemptions at preemption.spot_mtbf_node_h {:g}", e.preemptions,
                             job.preemption.spot_mtbf_node_h);
  }
  if (e.checkpoints > 0.0) out += fmt::format(", {:.3g} checkpoints", e.checkpoints);
  return out;
}

}  // namespace

EventEstimate estimate_run_events(const Job& job, const PlanSpec& plan, const Trace* trace) {
  EventEstimate e;
  const double ideal_s = plan_tokens(job, plan) / node_throughput(job, plan.nodes);
  e.horizon_s = job.max_wall_h > 0.0 ? std::min(ideal_s, job.max_wall_h * 3600.0) : ideal_s;
  e.ticks = e.horizon_s / job.telemetry_interval_s;
  if (plan.resource == FRUGAL_RESOURCE_SPOT) {
    if (trace != nullptr && trace->has_availability()) {
      // Every wrap of the period brings each of its unavailable runs again.
      e.preemptions =
          (e.horizon_s / trace->period_s() + 1.0) * static_cast<double>(trace->availability_changes()) / 2.0;
    } else if (const double mtbf = spot_mtbf_s(job, plan.nodes); mtbf > 0.0) {
      e.preemptions = e.horizon_s / mtbf;
    }
  }
  if (const double every_s = cadence_option(plan, "heartbeat_interval_s"); every_s > 0.0)
    e.checkpoints += e.horizon_s / every_s;
  if (const double every = cadence_option(plan, "full_interval_steps"); every > 0.0)
    e.checkpoints += static_cast<double>(plan_total_steps(job, plan)) / every;
  return e;
}

void check_event_budget(const Job& job, const Trace* trace, uint64_t runs) {
  for (const auto& plan : job.plans) {
    const EventEstimate e = estimate_run_events(job, plan, trace);
    if (!(e.total() <= kMaxEventsPerRun))
      throw InputError(fmt::format(
          "{}: plan '{}': one run would simulate about {:.3g} events ({}: {}), more than the limit of {:.0e} per run; "
          "raise throughput.tokens_per_gpu_s or telemetry_interval_s, or lower work",
          job.source, plan.name, e.total(), work_text(job, plan, e), breakdown(job, e, trace), kMaxEventsPerRun));
    const double all = e.total() * static_cast<double>(runs);
    if (!(all <= kMaxEventsPerPlan))
      throw InputError(
          fmt::format("{}: plan '{}': {} runs x about {:.3g} events per run = {:.3g} simulated events, more than the "
                      "limit of {:.0e} "
                      "per plan; lower --runs (at most {:.0f} for this job)",
                      job.source, plan.name, runs, e.total(), all, kMaxEventsPerPlan,
                      std::max(1.0, std::floor(kMaxEventsPerPlan / std::max(1.0, e.total())))));
  }
}

}  // namespace frugal::simulate
