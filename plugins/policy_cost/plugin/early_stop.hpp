// early_stop: stop when the watched loss has not improved for `patience`
// evaluations (algorithms/early_stopping.hpp).
//
// metric eval watches telemetry.eval_loss on records flagged
// FRUGAL_TELEMETRY_EVAL_LOSS; metric train watches the training loss of
// every record that has one (not flagged FRUGAL_TELEMETRY_NO_LOSS).
// Improvement means best - value > min_delta (mode absolute) or
// > min_delta x |best| (mode relative). Once the count reaches patience
// and the step is at least min_step, proposes stop = FRUGAL_STOP_PLATEAU,
// and keeps proposing it on every later record. No opinion before that.
#pragma once

#include "algorithms/early_stopping.hpp"
#include "frugal/sdk/plugin_support.hpp"
#include "frugal/telemetry.h"
#include "plugin/config.hpp"
#include "plugin/policy_state.hpp"

namespace frugal::policy::plugin {

class EarlyStop : public StatefulPolicy<EarlyStop> {
 public:
  explicit EarlyStop(const EarlyStopConfig& config);
  explicit EarlyStop(const sdk::Options& options) : EarlyStop(read_early_stop_config(options)) {}

  void decide(const frugal_telemetry& telemetry, frugal_decision& proposal);

  [[nodiscard]] bool stopped() const noexcept { return stopped_; }
  [[nodiscard]] const EarlyStopping& tracker() const noexcept { return tracker_; }

 private:
  friend class StatefulPolicy<EarlyStop>;
  [[nodiscard]] StateFrame frame() const noexcept { return {"PCES", "early_stop state", options_hash_}; }
  void save_fields(sdk::StateWriter& out) const;
  void load_fields(sdk::StateReader& in);

  EarlyStopConfig config_;
  uint64_t options_hash_;
  EarlyStopping tracker_;
  bool stopped_ = false;
};

}  // namespace frugal::policy::plugin
