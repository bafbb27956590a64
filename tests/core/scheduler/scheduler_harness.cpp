#include "scheduler_harness.hpp"

#include <catch2/catch.hpp>

namespace frugal::test {
namespace {

host::OptionsPtr options_from(const OptionList& list) {
  auto options = host::make_options();
  for (const auto& [name, text] : list)
    host::check(frugal_options_set_parsed(options.get(), name.c_str(), text.c_str()));
  return options;
}

}  // namespace

host::ContextPtr scheduler_context() {
  auto context = host::make_context();
  host::check(frugal_context_load_plugin(context.get(), plugin_path("probe_policy").c_str()));
  host::check(frugal_context_load_plugin(context.get(), builtin_path("schedule_lr").c_str()));
  return context;
}

frugal_telemetry record(double wall_s, int64_t step, double loss) {
  frugal_telemetry t{};
  t.struct_size = sizeof(t);
  t.nodes = 1;
  t.step = step;
  t.tokens = step * 1000;
  t.loss = loss;
  t.wall_time_s = wall_s;
  t.price_per_node_hour = 10.0;
  t.resource = FRUGAL_RESOURCE_SPOT;
  return t;
}

SchedulerHarness::SchedulerHarness(const SchedulerSpec& spec) : context_(scheduler_context()) {
  auto schedule_options = options_from(spec.schedule_options);
  std::vector<host::OptionsPtr> owned;
  std::vector<const char*> names;
  std::vector<const frugal_options*> options;
  for (const PolicySpec& p : spec.policies) {
    owned.push_back(options_from(p.options));
    names.push_back(p.name.c_str());
    options.push_back(owned.back().get());
  }
  frugal_scheduler_config config{};
  config.struct_size = sizeof(config);
  config.schedule = spec.schedule.empty() ? nullptr : spec.schedule.c_str();
  config.schedule_options = schedule_options.get();
  config.policies = names.data();
  config.policy_options = options.data();
  config.policy_count = names.size();
  config.gpus_per_node = spec.gpus_per_node;
  scheduler_ = host::make_scheduler(context_.get(), config);
}

frugal_decision SchedulerHarness::step(const frugal_telemetry& t) {
  frugal_decision d{};
  d.struct_size = sizeof(d);
  const Outcome result = outcome(frugal_scheduler_step(scheduler_.get(), &t, &d));
  INFO(result.message);
  REQUIRE(result.code == 0);
  REQUIRE(d.reason != nullptr);
  reason_ = d.reason;
  d.reason = reason_.c_str();
  return d;
}

Outcome SchedulerHarness::try_step(const frugal_telemetry& t) {
  frugal_decision d{};
  d.struct_size = sizeof(d);
  return outcome(frugal_scheduler_step(scheduler_.get(), &t, &d));
}

frugal_cost_ledger SchedulerHarness::ledger() const {
  frugal_cost_ledger l{};
  l.struct_size = sizeof(l);
  host::check(frugal_scheduler_ledger(scheduler_.get(), &l));
  return l;
}

std::vector<std::byte> SchedulerHarness::export_state() {
  size_t size = 0;
  host::check(frugal_scheduler_export_state(scheduler_.get(), nullptr, 0, &size));
  std::vector<std::byte> blob(size);
  host::check(frugal_scheduler_export_state(scheduler_.get(), blob.data(), blob.size(), &size));
  REQUIRE(size == blob.size());
  return blob;
}

Outcome SchedulerHarness::import_state(const std::vector<std::byte>& blob) {
  return outcome(frugal_scheduler_import_state(scheduler_.get(), blob.data(), blob.size()));
}

}  // namespace frugal::test
