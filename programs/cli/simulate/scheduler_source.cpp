#include "scheduler_source.hpp"

#include "option_values.hpp"

namespace frugal::simulate {
namespace {

host::OptionsPtr make_options(const std::vector<OptionValue>& values) {
  auto options = host::make_options();
  for (const auto& v : values) {
    switch (v.type) {
      case OptionValue::Type::kInt:
        host::check(frugal_options_set_int(options.get(), v.name.c_str(), v.int_value));
        break;
      case OptionValue::Type::kDouble:
        host::check(frugal_options_set_double(options.get(), v.name.c_str(), v.double_value));
        break;
      case OptionValue::Type::kBool:
        host::check(frugal_options_set_bool(options.get(), v.name.c_str(), v.bool_value ? 1 : 0));
        break;
      case OptionValue::Type::kString:
        host::check(frugal_options_set_string(options.get(), v.name.c_str(), v.string_value.c_str()));
        break;
    }
  }
  return options;
}

}  // namespace

PlanConfig::PlanConfig(const Job& job, const PlanSpec& plan) {
  config_.struct_size = sizeof(config_);
  if (!plan.schedule.empty()) {
    schedule_options_ = make_options(plan.schedule_options);
    config_.schedule = plan.schedule.c_str();
    config_.schedule_options = schedule_options_.get();
  }
  for (const auto& policy : plan.policies) {
    policy_options_.push_back(make_options(policy.options));
    policy_names_.push_back(policy.name.c_str());
    policy_option_ptrs_.push_back(policy_options_.back().get());
  }
  config_.policies = policy_names_.empty() ? nullptr : policy_names_.data();
  config_.policy_options = policy_option_ptrs_.empty() ? nullptr : policy_option_ptrs_.data();
  config_.policy_count = policy_names_.size();
  config_.gpus_per_node = job.gpus_per_node;
}

SchedulerSource::SchedulerSource(frugal_context* context, const PlanConfig& config)
    : scheduler_(host::make_scheduler(context, config.config())) {
  size_t size = 0;
  host::check(frugal_scheduler_export_state(scheduler_.get(), nullptr, 0, &size));
  fresh_state_.resize(size);
  host::check(frugal_scheduler_export_state(scheduler_.get(), fresh_state_.data(), fresh_state_.size(), &size));
  fresh_state_.resize(size);
  decision_.struct_size = sizeof(decision_);
}

void SchedulerSource::begin_run() {
  host::check(frugal_scheduler_import_state(scheduler_.get(), fresh_state_.data(), fresh_state_.size()));
}

const frugal_decision& SchedulerSource::step(const frugal_telemetry& telemetry) {
  host::check(frugal_scheduler_step(scheduler_.get(), &telemetry, &decision_));
  return decision_;
}

bool SchedulerSource::ledger(frugal_cost_ledger& out) const {
  out = frugal_cost_ledger{};
  out.struct_size = sizeof(out);
  host::check(frugal_scheduler_ledger(scheduler_.get(), &out));
  return true;
}

}  // namespace frugal::simulate
