#include "plugin/plateau_autoscaler.hpp"

#include <algorithm>
#include <cmath>

#include "plugin/telemetry_flags.hpp"
#include "plugin/text.hpp"

namespace frugal::policy::plugin {

PlateauAutoscaler::PlateauAutoscaler(const AutoscalerConfig& config)
    : config_(config), options_hash_(fingerprint(config)), windows_(config.window_s) {}

void PlateauAutoscaler::decide(const frugal_telemetry& t, frugal_decision& proposal) {
  const double now = t.wall_time_s;
  if (!started_) {
    started_ = true;
    target_ = std::clamp<int64_t>(t.nodes, config_.min_nodes, config_.max_nodes);
    windows_.restart(now);
    reason_ = std::to_string(target_) + " nodes; the loss trend is judged after two " + duration(config_.window_s) +
              " windows";
  }
  if (has_training_loss(t) && windows_.add(now, t.loss)) judge(now, windows_.improvement());
  proposal.target_nodes = static_cast<uint32_t>(target_);
  proposal.reason = reason_.c_str();
  proposal.next_due_s = windows_.window_end();
}

// One comparison of the last two windows.
void PlateauAutoscaler::judge(double now, double r) {
  const std::string measured = "loss " + std::string(r >= 0.0 ? "improved " : "worsened ") + percent(std::fabs(r)) +
                               " over the last " + duration(config_.window_s);
  const bool plateau = r < config_.plateau_improvement;
  const bool fast = r > config_.fast_improvement;
  if (!plateau && !fast) {
    reason_ = measured + " (between " + percent(config_.plateau_improvement) + " and " +
              percent(config_.fast_improvement) + "): keep " + std::to_string(target_) + " nodes";
    return;
  }
  const std::string rule = plateau ? " (plateau, below " + percent(config_.plateau_improvement) + ")"
                                   : " (fast, above " + percent(config_.fast_improvement) + ")";
  const bool at_bound = plateau ? target_ >= config_.max_nodes : target_ <= config_.min_nodes;
  if (at_bound) {
    reason_ = measured + rule + ": already at the " + (plateau ? "maximum, " : "minimum, ") + std::to_string(target_) +
              " nodes";
    return;
  }
  if (has_change_ && now - last_change_s_ < config_.cooldown_s) {
    reason_ = measured + rule + ": keep " + std::to_string(target_) + " nodes until the cooldown ends at " +
              fixed(last_change_s_ + config_.cooldown_s, 0) + " s";
    return;
  }
  // Clamped as a double first: a large scale_factor must not reach
  // llround out of int64's range.
  const double scaled = plateau ? static_cast<double>(target_) * config_.scale_factor
                                : static_cast<double>(target_) / config_.scale_factor;
  const double bounded =
      std::clamp(scaled, static_cast<double>(config_.min_nodes), static_cast<double>(config_.max_nodes));
  int64_t next = std::llround(bounded);
  next = plateau ? std::max(next, target_ + 1) : std::min(next, target_ - 1);
  reason_ = measured + rule + ": " + std::to_string(target_) + " -> " + std::to_string(next) + " nodes";
  target_ = next;
  has_change_ = true;
  last_change_s_ = now;
  windows_.restart(now);  // drops this record's sample too: it ran on the old count
}

void PlateauAutoscaler::save_fields(sdk::StateWriter& out) const {
  out.flag(started_).i64(target_).flag(has_change_).f64(last_change_s_);
  windows_.save(out);
}

void PlateauAutoscaler::load_fields(sdk::StateReader& in) {
  started_ = in.flag("started");
  // No target before the first record; then one in [min_nodes, max_nodes].
  target_ =
      started_ ? in.i64_in("target nodes", config_.min_nodes, config_.max_nodes) : in.i64_in("target nodes", 0, 0);
  has_change_ = in.flag("has change");
  last_change_s_ = in.at_least("last change time", 0.0);
  windows_.load(in);
}

}  // namespace frugal::policy::plugin
