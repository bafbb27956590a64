#include "plugin/checkpoint_cadence.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "plugin/policy_state.hpp"
#include "plugin/text.hpp"

namespace frugal::policy::plugin {

CheckpointCadence::CheckpointCadence(const CadenceConfig& config)
    : config_(config), options_hash_(fingerprint(config)), model_(config.checkpoint_cost_s, config.mtbf_s) {}

template <class Make>
void CheckpointCadence::explain(Rule rule, int64_t since, Make&& make) {
  if (rule == reason_rule_ && since == reason_since_) return;
  reason_rule_ = rule;
  reason_since_ = since;
  reason_ = make();
}

// Restarts and reported checkpoints move the timers (see the header).
void CheckpointCadence::observe_checkpoints(const frugal_telemetry& t, bool restarted) {
  const double now = t.wall_time_s;
  if (restarted) {
    model_.observe_restart();
    last_checkpoint_s_ = young_daly_since_s_ = now;
    if (asked_full_ && asked_full_step_ == t.step) {
      last_full_step_ = asked_full_step_;  // resumed from the full this policy asked for
      last_full_s_ = asked_full_s_;
    } else {
      // The job resumed at t.step: a full the policy knew of past that step
      // is not in this run's past any more.
      last_full_step_ = std::min(last_full_step_, t.step);
    }
    asked_full_ = false;
  }
  model_.observe_clock(now);
  if (t.checkpoint_done == FRUGAL_CKPT_FULL) {
    // A stall of 0 is a host that does not measure it, not a free save.
    if (t.checkpoint_stall_s > 0.0) model_.observe_stall(t.checkpoint_stall_s);
    const bool asked = asked_full_ && !restarted;
    last_full_step_ = restarted ? t.step : asked ? asked_full_step_ : previous_step_;
    last_full_s_ = restarted ? now : asked ? asked_full_s_ : previous_s_;
    last_checkpoint_s_ = young_daly_since_s_ = now;
    asked_full_ = false;
  } else if (t.checkpoint_done == FRUGAL_CKPT_HEARTBEAT) {
    last_checkpoint_s_ = now;
  }
}

void CheckpointCadence::decide(const frugal_telemetry& t, frugal_decision& proposal) {
  const double now = t.wall_time_s;
  const bool restarted = (t.flags & FRUGAL_TELEMETRY_RESTARTED) != 0;
  observe_checkpoints(t, restarted);

  // A restart record covers the downtime before the job came back; like
  // the scheduler, do not take a notice there as a fresh one.
  const double notice = restarted ? 0.0 : t.preemption_notice_s;
  uint32_t action = FRUGAL_CKPT_NONE;
  if (notice > 0.0 && !in_notice_) {
    const double cost = model_.cost_s();
    const bool full = cost <= config_.notice_safety * notice;
    action = full ? FRUGAL_CKPT_FULL : FRUGAL_CKPT_HEARTBEAT;
    explain(Rule::notice, std::bit_cast<int64_t>(now), [&] {
      return "preemption notice " + duration(notice) +
             (full ? ": full checkpoint (a full stalls ~" : ": heartbeat only (a full stalls ~") + duration(cost) +
             (full ? ", within " : ", more than ") + fixed(config_.notice_safety, 2) + " x the notice)";
    });
  } else {
    action = due(t);
  }
  in_notice_ = notice > 0.0;
  if (action == FRUGAL_CKPT_FULL && !asked_full_) {
    asked_full_ = true;
    asked_full_step_ = t.step;
    asked_full_s_ = now;
  }
  previous_step_ = t.step;
  previous_s_ = now;

  if (action != FRUGAL_CKPT_NONE) {
    proposal.checkpoint = action;
    proposal.reason = reason_.c_str();
  }
  proposal.next_due_s = next_due(now, action);
}

// The checkpoint the timers call for now, with its reason.
uint32_t CheckpointCadence::due(const frugal_telemetry& t) {
  const double now = t.wall_time_s;
  // A later multiple of the interval than the last full's (both steps >= 0).
  if (config_.full_interval_steps > 0 &&
      t.step / config_.full_interval_steps > last_full_step_ / config_.full_interval_steps) {
    explain(Rule::steps, last_full_step_, [&] {
      return "full-checkpoint interval of " + std::to_string(config_.full_interval_steps) +
             " steps reached since step " + std::to_string(last_full_step_);
    });
    return FRUGAL_CKPT_FULL;
  }
  const int64_t full_since = std::bit_cast<int64_t>(last_full_s_);
  if (config_.full_interval_s > 0.0 &&
      std::floor(now / config_.full_interval_s) > std::floor(last_full_s_ / config_.full_interval_s)) {
    explain(Rule::seconds, full_since, [&] {
      return "full-checkpoint interval " + duration(config_.full_interval_s) + " elapsed since job time " +
             duration(last_full_s_);
    });
    return FRUGAL_CKPT_FULL;
  }
  if (config_.young_daly) {
    const double interval = model_.interval_s();
    if (now - young_daly_since_s_ >= interval) {
      explain(Rule::young_daly, std::bit_cast<int64_t>(young_daly_since_s_), [&] {
        return "young/daly interval " + duration(interval) + " (cost " + duration(model_.cost_s()) + ", MTBF " +
               duration(model_.mtbf_s()) + ") elapsed";
      });
      return FRUGAL_CKPT_FULL;
    }
  }
  if (config_.heartbeat_interval_s > 0.0 && now - last_checkpoint_s_ >= config_.heartbeat_interval_s) {
    explain(Rule::heartbeat, std::bit_cast<int64_t>(last_checkpoint_s_), [&] {
      return "heartbeat interval " + duration(config_.heartbeat_interval_s) + " elapsed since job time " +
             duration(last_checkpoint_s_);
    });
    return FRUGAL_CKPT_HEARTBEAT;
  }
  return FRUGAL_CKPT_NONE;
}

double CheckpointCadence::next_due(double now, uint32_t action) const {
  const bool full = action == FRUGAL_CKPT_FULL;
  const double any_base = action != FRUGAL_CKPT_NONE ? now : last_checkpoint_s_;
  double next = std::numeric_limits<double>::infinity();
  if (config_.heartbeat_interval_s > 0.0) next = std::min(next, any_base + config_.heartbeat_interval_s);
  if (config_.full_interval_s > 0.0) {
    // The next multiple after the one the last full (or this one) holds.
    const double base = full ? now : last_full_s_;
    next = std::min(next, (std::floor(base / config_.full_interval_s) + 1.0) * config_.full_interval_s);
  }
  if (config_.young_daly) next = std::min(next, (full ? now : young_daly_since_s_) + model_.interval_s());
  return std::isinf(next) ? 0.0 : next;
}

void CheckpointCadence::save_fields(sdk::StateWriter& out) const {
  model_.save(out);
  out.f64(last_full_s_).i64(last_full_step_).f64(young_daly_since_s_).f64(last_checkpoint_s_);
  out.i64(previous_step_).f64(previous_s_).flag(asked_full_).i64(asked_full_step_).f64(asked_full_s_);
  out.flag(in_notice_);
  out.u8(static_cast<uint8_t>(reason_rule_)).i64(reason_since_);
}

void CheckpointCadence::load_fields(sdk::StateReader& in) {
  model_.load(in);
  last_full_s_ = in.at_least("last full time", 0.0);  // times are job-clock times, steps >= 0
  last_full_step_ = in.i64_in("last full step", 0, std::numeric_limits<int64_t>::max());
  young_daly_since_s_ = in.at_least("young/daly start", 0.0);
  last_checkpoint_s_ = in.at_least("last checkpoint time", 0.0);
  previous_step_ = in.i64_in("previous step", 0, std::numeric_limits<int64_t>::max());
  previous_s_ = in.at_least("previous time", 0.0);
  asked_full_ = in.flag("asked for a full");
  asked_full_step_ = in.i64_in("asked full step", 0, std::numeric_limits<int64_t>::max());
  asked_full_s_ = in.at_least("asked full time", 0.0);
  in_notice_ = in.flag("in notice");
  const uint8_t rule = in.u8("reason rule");
  if (rule > static_cast<uint8_t>(Rule::notice))
    in.corrupted("field 'reason rule' is " + std::to_string(rule) + ", not a known rule");
  reason_rule_ = static_cast<Rule>(rule);
  reason_since_ = in.i64("reason start");  // only compared for equality: any value is safe
}

}  // namespace frugal::policy::plugin
