#include "plugin/spot_phase.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "algorithms/trend_test.hpp"
#include "plugin/telemetry_flags.hpp"
#include "plugin/text.hpp"

namespace frugal::policy::plugin {

SpotPhase::SpotPhase(const SpotPhaseConfig& config)
    : config_(config),
      options_hash_(fingerprint(config)),
      warmup_reason_("warming up on spot: no steady loss descent over " + std::to_string(config.window) +
                     " samples yet (needs " + std::to_string(config.confirmations) +
                     " passing trend tests in a row, on disjoint windows)"),
      window_(static_cast<std::size_t>(config.window)) {
  reason_ = warmup_reason_;
  restarts_.reserve(static_cast<std::size_t>(config.max_preemptions));
  const auto n = static_cast<std::size_t>(config.window);
  times_.reserve(n);
  losses_.reserve(n);
  scratch_.reserve(n * (n - 1) / 2);
}

void SpotPhase::decide(const frugal_telemetry& t, frugal_decision& proposal) {
  const double now = t.wall_time_s;
  // The samples and restarts are kept in time order. The scheduler keeps
  // the job clock from going back, but an imported state can hold times of
  // another job's clock: refuse before anything is recorded out of order.
  // Both times print exactly: "0.000 s is before 0.000 s" hid which was later.
  const double latest = std::max(window_.latest_time(), restarts_.empty() ? 0.0 : restarts_.back());
  if (now < latest)
    throw sdk::PluginError(FRUGAL_ERR_FAILED_PRECONDITION,
                           "telemetry.wall_time_s " + sdk::number_text(now) + " s is before " +
                               sdk::number_text(latest) +
                               " s, the newest time in this policy's state: the state was imported from another "
                               "job clock");
  if ((t.flags & FRUGAL_TELEMETRY_RESTARTED) != 0) {
    if (restarts_.size() == static_cast<std::size_t>(config_.max_preemptions)) restarts_.erase(restarts_.begin());
    restarts_.push_back(now);
  }
  if (phase_ != Phase::steady && has_training_loss(t) &&
      (!has_sample_ || now - last_sample_s_ >= config_.sample_interval_s))
    take_sample(now, t.loss);
  const bool spike = spike_seen(t);

  if (phase_ == Phase::steady) {
    // Reserved for good.
  } else if (passes_ >= config_.confirmations && now >= config_.min_spot_s) {
    phase_ = Phase::steady;
    reason_ = "loss descends steadily (trend z " + fixed(last_z_, 2) + ", noise " + fixed(last_noise_, 2) + ", " +
              std::to_string(passes_) + " passing tests in a row): reserved from now on";
  } else if (spike) {
    phase_ = Phase::spike;  // reason_ set by spike_seen when the spike started
  } else if (phase_ == Phase::spike && now - last_spike_s_ >= config_.cooldown_s) {
    phase_ = Phase::warmup;
    reason_ = "no price or preemption spike for " + duration(now - last_spike_s_) + ": back to spot";
  }

  proposal.resource = phase_ == Phase::warmup ? FRUGAL_RESOURCE_SPOT : FRUGAL_RESOURCE_RESERVED;
  proposal.reason = reason_.c_str();
  proposal.next_due_s = next_due();
}

void SpotPhase::take_sample(double now, double loss) {
  window_.push(now, loss);
  has_sample_ = true;
  last_sample_s_ = now;
  if (++fresh_samples_ < config_.window || !window_.full()) return;
  fresh_samples_ = 0;
  ++tests_run_;
  // The rank test first, from the S the window keeps: most samples of a
  // noisy warm-up end here, without copying or fitting anything.
  DescentCheck c;
  c.z = mann_kendall_z(window_.mann_kendall_s(), window_.size());
  if (c.z <= -config_.z_threshold) {
    window_.copy_to(times_, losses_);
    c = fit_descent(times_, losses_, c.z, config_.max_noise, scratch_);
  }
  if (!c.passed) {
    // Explain the warm-up again once a run of passes is broken.
    if (passes_ > 0 && phase_ == Phase::warmup) reason_ = warmup_reason_;
    passes_ = 0;
    return;
  }
  ++passes_;
  last_z_ = c.z;
  last_noise_ = c.noise;
  if (phase_ != Phase::warmup) return;  // a spike's reason stands
  reason_ = "loss descending (trend z " + fixed(c.z, 2) + ", noise " + fixed(c.noise, 2) +
            "): " + std::to_string(std::min(passes_, config_.confirmations)) + " of " +
            std::to_string(config_.confirmations) + " passing tests";
  if (passes_ >= config_.confirmations && now < config_.min_spot_s)
    reason_ += "; on spot until min_spot_s " + duration(config_.min_spot_s);
}

// Whether this record shows a spike; the reason is written when one starts.
bool SpotPhase::spike_seen(const frugal_telemetry& t) {
  if (phase_ == Phase::steady) return false;
  const double now = t.wall_time_s;
  const bool price = config_.reserved_price > 0.0 && t.resource == FRUGAL_RESOURCE_SPOT &&
                     t.price_per_node_hour > config_.max_price_ratio * config_.reserved_price;
  const bool preemptions = restarts_.size() == static_cast<std::size_t>(config_.max_preemptions) &&
                           now - restarts_.front() <= config_.preemption_window_s;
  if (!price && !preemptions) return false;
  const bool starts = phase_ == Phase::warmup;
  has_spike_ = true;
  last_spike_s_ = now;
  if (starts) {
    const std::string until = ": reserved until no spike for " + duration(config_.cooldown_s);
    if (price) {
      reason_ = "spot price $" + fixed(t.price_per_node_hour, 2) + "/node-h above " +
                fixed(config_.max_price_ratio, 2) + " x reserved $" + fixed(config_.reserved_price, 2) + until;
    } else {
      reason_ = std::to_string(restarts_.size()) + " preemptions within " + duration(now - restarts_.front()) +
                " (limit " + std::to_string(config_.max_preemptions) + " in " + duration(config_.preemption_window_s) +
                ")" + until;
    }
  }
  return true;
}

double SpotPhase::next_due() const {
  double next = std::numeric_limits<double>::infinity();
  if (phase_ == Phase::spike) next = last_spike_s_ + config_.cooldown_s;
  if (phase_ != Phase::steady && config_.sample_interval_s > 0.0)
    next = std::min(next, last_sample_s_ + config_.sample_interval_s);
  return std::isinf(next) ? 0.0 : next;
}

void SpotPhase::save_fields(sdk::StateWriter& out) const {
  out.u8(static_cast<uint8_t>(phase_));
  window_.save(out);
  out.flag(has_sample_)
      .f64(last_sample_s_)
      .i64(passes_)
      .i64(fresh_samples_)
      .i64(tests_run_)
      .f64(last_z_)
      .f64(last_noise_);
  out.u64(restarts_.size());
  for (const double r : restarts_) out.f64(r);
  out.flag(has_spike_).f64(last_spike_s_);
}

void SpotPhase::load_fields(sdk::StateReader& in) {
  const uint8_t phase = in.u8("phase");
  if (phase > static_cast<uint8_t>(Phase::spike))
    in.corrupted("field 'phase' is " + std::to_string(phase) + ", not a known phase");
  phase_ = static_cast<Phase>(phase);
  window_.load(in);
  has_sample_ = in.flag("has sample");
  last_sample_s_ = in.at_least("last sample time", 0.0);  // times are job-clock times
  // Every sample enters the window and sets the last sample time.
  if (has_sample_ != (window_.size() > 0))
    in.corrupted("field 'has sample' is " + std::to_string(has_sample_) + " with " + std::to_string(window_.size()) +
                 " loss samples");
  if (has_sample_ && last_sample_s_ != window_.latest_time())
    in.corrupted("field 'last sample time' is " + fixed(last_sample_s_, 3) + "; the newest loss sample is at " +
                 fixed(window_.latest_time(), 3));
  passes_ = in.counter("passing tests");
  fresh_samples_ = in.i64_in("samples since the last test", 0, config_.window - 1);
  tests_run_ = in.counter("tests run");
  last_z_ = in.finite("last z");
  last_noise_ = in.at_least("last noise", 0.0);
  const auto restarts = in.count("restarts", static_cast<uint64_t>(config_.max_preemptions), 8);
  restarts_.clear();
  for (uint64_t i = 0; i < restarts; ++i)
    restarts_.push_back(in.at_least("restart time", i > 0 ? restarts_.back() : 0.0));  // in order
  has_spike_ = in.flag("has spike");
  last_spike_s_ = in.at_least("last spike time", 0.0);
}

}  // namespace frugal::policy::plugin
