// checkpoint_cadence: when to checkpoint, and how heavily.
//
// FULL when a full checkpoint is due (full_interval_steps steps or
// full_interval_s seconds since the last completed full, or the Young/Daly
// interval since it), else HEARTBEAT when heartbeat_interval_s passed since
// the last completed checkpoint of either kind, else nothing. A due
// checkpoint is proposed on every record until telemetry reports it done
// (checkpoint_done), so a host that could not take it at once is told
// again. Timers count from job-clock 0 and step 0, and restart at a
// completed checkpoint (a full restarts both) and at a restart
// (FRUGAL_TELEMETRY_RESTARTED: the job resumed from a checkpoint).
//
// On the first record of a preemption notice (counted as the scheduler
// counts them: not on a restart record): FULL when the measured cost of a
// full fits in notice_safety x the notice, else HEARTBEAT; the notice
// decides that record even when a timer is due, since a full that cannot
// finish before the nodes go saves nothing.
//
// next_due_s: the job-clock time the next timer falls due, counting a
// checkpoint proposed now as taken now (0 with no time-based timer).
//
// A reason names the rule and the checkpoint it counts from, and is written
// once per (rule, starting point): re-proposing a checkpoint the host has
// not taken yet costs no formatting.
#pragma once

#include "algorithms/young_daly.hpp"
#include "frugal/sdk/plugin_support.hpp"
#include "frugal/telemetry.h"
#include "plugin/config.hpp"
#include "plugin/policy_state.hpp"

namespace frugal::policy::plugin {

class CheckpointCadence : public StatefulPolicy<CheckpointCadence> {
 public:
  explicit CheckpointCadence(const CadenceConfig& config);
  explicit CheckpointCadence(const sdk::Options& options) : CheckpointCadence(read_cadence_config(options)) {}

  void decide(const frugal_telemetry& telemetry, frugal_decision& proposal);

  // The learnt delta and M (for tests and reasons).
  [[nodiscard]] const CheckpointCostModel& cost_model() const noexcept { return model_; }

 private:
  // What reason_ explains; a new one is formatted only when this changes.
  enum class Rule : uint8_t { none = 0, steps = 1, seconds = 2, young_daly = 3, heartbeat = 4, notice = 5 };

  [[nodiscard]] uint32_t due(const frugal_telemetry& t);
  template <class Make>
  void explain(Rule rule, int64_t since, Make&& make);
  [[nodiscard]] double next_due(double now, uint32_t action) const;
  friend class StatefulPolicy<CheckpointCadence>;
  [[nodiscard]] StateFrame frame() const noexcept { return {"PCCK", "checkpoint_cadence state", options_crc_}; }
  void save_fields(sdk::StateWriter& out) const;
  void load_fields(sdk::StateReader& in);

  CadenceConfig config_;
  uint32_t options_crc_;
  CheckpointCostModel model_;
  double last_full_s_ = 0.0;
  int64_t last_full_step_ = 0;
  double last_checkpoint_s_ = 0.0;  // either kind
  bool in_notice_ = false;          // the previous record carried a notice
  Rule reason_rule_ = Rule::none;
  int64_t reason_since_ = 0;  // the step, or the bits of the time, the rule counts from
};

}  // namespace frugal::policy::plugin
