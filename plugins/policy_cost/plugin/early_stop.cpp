#include "plugin/early_stop.hpp"

#include "plugin/telemetry_flags.hpp"
#include "plugin/text.hpp"

namespace frugal::policy::plugin {

EarlyStop::EarlyStop(const EarlyStopConfig& config)
    : config_(config), options_hash_(fingerprint(config)), tracker_(config.patience, config.min_delta, config.mode) {}

void EarlyStop::decide(const frugal_telemetry& t, frugal_decision& proposal) {
  if (!stopped_) {
    if (config_.metric == Metric::train) {
      if (has_training_loss(t)) tracker_.observe(t.loss, t.step);
    } else if ((t.flags & FRUGAL_TELEMETRY_EVAL_LOSS) != 0) {
      tracker_.observe(t.eval_loss, t.step);
    }
    if (tracker_.exhausted() && t.step >= config_.min_step) {
      stopped_ = true;
      const char* metric = config_.metric == Metric::eval ? "eval" : "train";
      const std::string delta =
          config_.mode == DeltaMode::absolute ? fixed(config_.min_delta, 4) : fixed(config_.min_delta, 4) + " x best";
      reason_ = std::string(metric) + " loss did not improve by more than " + delta + " in " +
                std::to_string(tracker_.stale()) + (config_.metric == Metric::eval ? " evaluations" : " records") +
                ": best " + fixed(tracker_.best(), 4) + " at step " + std::to_string(tracker_.best_step());
    }
  }
  if (stopped_) {
    proposal.stop = FRUGAL_STOP_PLATEAU;
    proposal.reason = reason_.c_str();
  }
}

void EarlyStop::save_fields(sdk::StateWriter& out) const {
  tracker_.save(out);
  out.flag(stopped_);
}

void EarlyStop::load_fields(sdk::StateReader& in) {
  tracker_.load(in);
  stopped_ = in.flag("stopped");
}

}  // namespace frugal::policy::plugin
