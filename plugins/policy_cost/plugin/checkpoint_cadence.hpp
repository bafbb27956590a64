// checkpoint_cadence: when to checkpoint, and how heavily.
//
// FULL when a full checkpoint is due, else HEARTBEAT when
// heartbeat_interval_s passed since the last completed checkpoint of either
// kind (or since a restart: the job resumed from a checkpoint), else
// nothing. A due checkpoint is proposed on every record until telemetry
// reports it done (checkpoint_done), so a host that could not take it at
// once is told again.
//
// Full checkpoints by steps and by seconds fall on multiples of the
// interval: one is due on the first record whose step (job-clock time)
// lies in a later multiple of full_interval_steps (full_interval_s) than
// the state the last full holds. A reported checkpoint holds the state of
// the record that asked for it (this policy's first proposal), else of the
// record before the report: it began after that record's decision. So a
// host that reports a step late does not push the next full later (10,
// 20, 30, not 10, 21, 32), and a multiple passed without a full (skipped,
// or restored past) is overdue and due at once. A restart keeps the last
// full (the job resumed from some checkpoint, not necessarily a full):
// after restoring a heartbeat at step 15 the next full is at step 20; a
// restart at the step of a full this policy asked for resumed from that
// full. The Young/Daly interval counts from the last completed full or the
// last restart, as in Daly's model (M, learnt from the restarts, shortens
// the interval when preemptions come often).
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
  void observe_checkpoints(const frugal_telemetry& t, bool restarted);
  template <class Make>
  void explain(Rule rule, int64_t since, Make&& make);
  [[nodiscard]] double next_due(double now, uint32_t action) const;
  friend class StatefulPolicy<CheckpointCadence>;
  // Version 2: the fields that keep fulls on multiples across restarts.
  [[nodiscard]] StateFrame frame() const noexcept { return {"PCCK", "checkpoint_cadence state", options_hash_, 3}; }
  void save_fields(sdk::StateWriter& out) const;
  void load_fields(sdk::StateReader& in);

  CadenceConfig config_;
  uint64_t options_hash_;
  CheckpointCostModel model_;
  double last_full_s_ = 0.0;         // the job time the last full holds
  int64_t last_full_step_ = 0;       // the step it holds
  double young_daly_since_s_ = 0.0;  // the last full's report, or the last restart
  double last_checkpoint_s_ = 0.0;   // either kind, or the last restart
  int64_t previous_step_ = 0;        // of the previous record (step 0 before the first)
  double previous_s_ = 0.0;
  bool asked_full_ = false;      // a full this policy proposed is not reported done yet
  int64_t asked_full_step_ = 0;  // the record that first proposed it
  double asked_full_s_ = 0.0;
  bool in_notice_ = false;  // the previous record carried a notice
  Rule reason_rule_ = Rule::none;
  int64_t reason_since_ = 0;  // the step, or the bits of the time, the rule counts from
};

}  // namespace frugal::policy::plugin
