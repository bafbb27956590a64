#include "simulation.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "event_budget.hpp"
#include "input_error.hpp"

namespace frugal::simulate {

host::ContextPtr open_plugin_context() {
  auto context = host::make_context();
  host::check(frugal_context_discover_plugins(context.get(), 0, nullptr));
  return context;
}

KnownStrategies known_strategies(frugal_context* context) {
  KnownStrategies known;
  for (size_t p = 0; p < frugal_context_plugin_count(context); ++p) {
    frugal_plugin_info plugin{};
    plugin.struct_size = sizeof(plugin);
    host::check(frugal_context_plugin_info(context, p, &plugin));
    for (size_t s = 0; s < plugin.strategy_count; ++s) {
      frugal_strategy_info info{};
      info.struct_size = sizeof(info);
      host::check(frugal_context_strategy_info(context, p, s, &info));
      if (info.kind == FRUGAL_KIND_POLICY) known.policies.emplace_back(info.name);
      if (info.kind == FRUGAL_KIND_SCHEDULE) known.schedules.emplace_back(info.name);
    }
  }
  for (auto* names : {&known.policies, &known.schedules}) {
    std::sort(names->begin(), names->end());
    names->erase(std::unique(names->begin(), names->end()), names->end());
  }
  return known;
}

std::vector<std::unique_ptr<PlanConfig>> plan_configs(frugal_context* context, const Job& job) {
  std::vector<std::unique_ptr<PlanConfig>> configs;
  for (const auto& plan : job.plans) {
    try {
      configs.push_back(std::make_unique<PlanConfig>(job, plan));
      SchedulerSource probe(context, *configs.back());
    } catch (const host::Exception& e) {
      throw InputError(fmt::format("{}: plan '{}': {}", job.source, plan.name, e.what()));
    }
  }
  return configs;
}

SourceFactory scheduler_factory(frugal_context* context, const std::vector<std::unique_ptr<PlanConfig>>& configs) {
  return [context, &configs](size_t plan) -> std::unique_ptr<DecisionSource> {
    return std::make_unique<SchedulerSource>(context, *configs[plan]);
  };
}

std::string describe_trace(const Trace& trace) {
  return fmt::format("trace {} ({}, {})", trace.source(), trace.format(), trace.selection());
}

Simulation simulate(frugal_context* context, const Job& job, const Trace* trace, const MonteCarloOptions& options) {
  check_event_budget(job, trace, options.runs);  // before anything runs: a refused job costs nothing
  const auto configs = plan_configs(context, job);
  Simulation sim;
  sim.results = run_monte_carlo(job, trace, scheduler_factory(context, configs), options);
  sim.report.job = &job;
  sim.report.trace = trace;
  sim.report.trace_description = trace != nullptr ? describe_trace(*trace) : "";
  sim.report.runs = options.runs;
  sim.report.seed = options.seed;
  for (size_t p = 0; p < job.plans.size(); ++p) sim.report.plans.push_back(summarize(job.plans[p], sim.results[p]));
  return sim;
}

}  // namespace frugal::simulate
