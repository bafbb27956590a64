// plateau_autoscaler: more nodes while the loss plateaus, fewer while it
// falls fast.
//
// The training loss is averaged over consecutive windows of window_s
// seconds (algorithms/window_improvement.hpp); records flagged
// FRUGAL_TELEMETRY_NO_LOSS add no sample. Each time a record closes a
// window and the two windows before it both hold samples, the relative
// improvement r = (previous mean - last mean) / |previous mean| decides:
//   r < plateau_improvement: scale up to round(target x scale_factor)
//   r > fast_improvement:    scale down to round(target / scale_factor)
// each clamped to [min_nodes, max_nodes] and at least one node of change.
// After a change nothing changes for cooldown_s, and the windows restart
// at the change: samples measured with the old node count are dropped, so
// the first comparison comes two full windows later.
//
// The target starts as the first record's nodes clamped to [min, max] and
// is proposed on every record, so a host that has not obeyed yet keeps
// being told; scaling starts from the target, not from what ran.
// next_due_s: the end of the open window (the next comparison).
#pragma once

#include <cstdint>

#include "algorithms/window_improvement.hpp"
#include "frugal/sdk/plugin_support.hpp"
#include "frugal/telemetry.h"
#include "plugin/config.hpp"
#include "plugin/policy_state.hpp"

namespace frugal::policy::plugin {

class PlateauAutoscaler : public StatefulPolicy<PlateauAutoscaler> {
 public:
  explicit PlateauAutoscaler(const AutoscalerConfig& config);
  explicit PlateauAutoscaler(const sdk::Options& options) : PlateauAutoscaler(read_autoscaler_config(options)) {}

  void decide(const frugal_telemetry& telemetry, frugal_decision& proposal);

  [[nodiscard]] int64_t target() const noexcept { return target_; }

 private:
  void judge(double now, double r);
  friend class StatefulPolicy<PlateauAutoscaler>;
  [[nodiscard]] StateFrame frame() const noexcept { return {"PCAS", "plateau_autoscaler state", options_hash_}; }
  void save_fields(sdk::StateWriter& out) const;
  void load_fields(sdk::StateReader& in);

  AutoscalerConfig config_;
  uint64_t options_hash_;
  bool started_ = false;
  int64_t target_ = 0;
  bool has_change_ = false;
  double last_change_s_ = 0.0;
  WindowImprovement windows_;
};

}  // namespace frugal::policy::plugin
