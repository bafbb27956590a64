// A scheduler built from a readable spec (schedule + policies with text
// options), the context that loads probe_policy and schedule_lr, and a
// telemetry builder with the defaults most tests share.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "test_helpers.hpp"

namespace frugal::test {

using OptionList = std::vector<std::pair<std::string, std::string>>;

struct PolicySpec {
  std::string name;
  OptionList options;
};

struct SchedulerSpec {
  std::string schedule;  // "" for none
  OptionList schedule_options;
  std::vector<PolicySpec> policies;
  uint32_t gpus_per_node = 1;
};

// One record: 1 node on spot at $10 per node-hour unless changed.
frugal_telemetry record(double wall_s, int64_t step, double loss);

class SchedulerHarness {
 public:
  explicit SchedulerHarness(const SchedulerSpec& spec);

  // Steps and REQUIREs success; the decision's reason is copied out.
  frugal_decision step(const frugal_telemetry& t);
  Outcome try_step(const frugal_telemetry& t);
  [[nodiscard]] const std::string& reason() const { return reason_; }

  frugal_cost_ledger ledger() const;
  std::vector<std::byte> export_state();
  Outcome import_state(const std::vector<std::byte>& blob);
  frugal_scheduler* get() const { return scheduler_.get(); }

 private:
  host::ContextPtr context_;
  host::SchedulerPtr scheduler_;
  std::string reason_;
};

// A fresh context with probe_policy and schedule_lr loaded (for tests that
// call frugal_scheduler_create themselves).
host::ContextPtr scheduler_context();

}  // namespace frugal::test
