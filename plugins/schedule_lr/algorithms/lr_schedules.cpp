#include "lr_schedules.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

namespace frugal::schedule_lr {
namespace {

using sdk::PluginError;

// Error messages name the option, not the strategy: the core prefixes
// every plugin error with "schedule '<name>': ".
double read_lr(const sdk::Options& options) {
  const double lr = options.get_double("lr", 1e-3);
  if (!std::isfinite(lr) || lr <= 0.0)
    throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT,
                      "option 'lr' must be a finite number > 0, got " + std::to_string(lr));
  return lr;
}

int64_t read_warmup(const sdk::Options& options) {
  const int64_t warmup = options.get_int("warmup_steps", 0);
  if (warmup < 0)
    throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "option 'warmup_steps' must be >= 0, got " + std::to_string(warmup));
  return warmup;
}

// min_lr in [0, lr].
double read_min_lr(const sdk::Options& options, double lr) {
  const double min_lr = options.get_double("min_lr", 0.0);
  if (!std::isfinite(min_lr) || min_lr < 0.0 || min_lr > lr)
    throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "option 'min_lr' must be in [0, lr], got " + std::to_string(min_lr));
  return min_lr;
}

// The required total_steps, after the warm-up.
int64_t read_total_steps(const sdk::Options& options, int64_t warmup_steps) {
  options.require("total_steps");
  const int64_t total = options.get_int("total_steps", 0);
  if (total <= warmup_steps)
    throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "option 'total_steps' (" + std::to_string(total) +
                                                       ") must be greater than 'warmup_steps' (" +
                                                       std::to_string(warmup_steps) + ")");
  return total;
}

double decay(DecayShape shape, double peak, double floor, double progress) {
  switch (shape) {
    case DecayShape::linear: return peak - (peak - floor) * progress;
    case DecayShape::cosine: return floor + (peak - floor) * 0.5 * (1.0 + std::cos(std::numbers::pi * progress));
    case DecayShape::one_minus_sqrt: return floor + (peak - floor) * (1.0 - std::sqrt(progress));
  }
  return floor;
}

void check_step(int64_t step) {
  if (step < 0) throw PluginError(FRUGAL_ERR_OUT_OF_RANGE, "step must be >= 0, got " + std::to_string(step));
}

// Fraction of the peak rate during warm-up; 1 once warm-up is over.
double warmup_factor(int64_t step, int64_t warmup_steps) {
  if (step >= warmup_steps) return 1.0;
  return static_cast<double>(step + 1) / static_cast<double>(warmup_steps);
}

}  // namespace

Constant::Constant(const sdk::Options& options) {
  options.check_known({"lr"});
  lr_ = read_lr(options);
}

double Constant::lr(int64_t step) const {
  check_step(step);
  return lr_;
}

LinearWarmup::LinearWarmup(const sdk::Options& options) {
  options.check_known({"lr", "warmup_steps"});
  lr_ = read_lr(options);
  warmup_steps_ = read_warmup(options);
}

double LinearWarmup::lr(int64_t step) const {
  check_step(step);
  return lr_ * warmup_factor(step, warmup_steps_);
}

WarmupCosine::WarmupCosine(const sdk::Options& options) {
  options.check_known({"lr", "min_lr", "warmup_steps", "total_steps"});
  lr_ = read_lr(options);
  min_lr_ = read_min_lr(options, lr_);
  warmup_steps_ = read_warmup(options);
  total_steps_ = read_total_steps(options, warmup_steps_);
}

double WarmupCosine::lr(int64_t step) const {
  check_step(step);
  if (step < warmup_steps_) return lr_ * warmup_factor(step, warmup_steps_);
  if (step >= total_steps_) return min_lr_;
  const double progress = static_cast<double>(step - warmup_steps_) / static_cast<double>(total_steps_ - warmup_steps_);
  return decay(DecayShape::cosine, lr_, min_lr_, progress);
}

WarmRestarts::WarmRestarts(const sdk::Options& options) {
  options.check_known({"lr", "min_lr", "warmup_steps", "cycle_steps", "cycle_mult", "restart_decay", "shape"});
  lr_ = read_lr(options);
  min_lr_ = read_min_lr(options, lr_);
  warmup_steps_ = read_warmup(options);
  options.require("cycle_steps");
  cycle_steps_ = options.get_int_in("cycle_steps", 1, 1, std::numeric_limits<int64_t>::max());
  cycle_mult_ = options.get_int_in("cycle_mult", 1, 1, 1024);
  restart_decay_ = options.get_double("restart_decay", 1.0);
  if (!(restart_decay_ > 0.0 && restart_decay_ <= 1.0))
    throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT,
                      "option 'restart_decay' must be in (0, 1], got " + std::to_string(restart_decay_));
  shape_ = options.get_choice<DecayShape>("shape", "cosine",
                                          {{"cosine", DecayShape::cosine}, {"linear", DecayShape::linear}});
}

double WarmRestarts::lr(int64_t step) const {
  check_step(step);
  if (step < warmup_steps_) return lr_ * warmup_factor(step, warmup_steps_);
  // Walk the cycles: with cycle_mult > 1 their lengths grow geometrically,
  // so this takes O(log step) iterations; with 1 it is one division.
  int64_t t = step - warmup_steps_;
  int64_t length = cycle_steps_;
  int64_t cycle = 0;
  if (cycle_mult_ == 1) {
    cycle = t / length;
    t %= length;
  } else {
    while (t >= length) {
      t -= length;
      ++cycle;
      length = length > std::numeric_limits<int64_t>::max() / cycle_mult_ ? std::numeric_limits<int64_t>::max()
                                                                          : length * cycle_mult_;
    }
  }
  const double peak = std::max(min_lr_, lr_ * std::pow(restart_decay_, static_cast<double>(cycle)));
  return decay(shape_, peak, min_lr_, static_cast<double>(t) / static_cast<double>(length));
}

WarmupStableDecay::WarmupStableDecay(const sdk::Options& options) {
  options.check_known({"lr", "min_lr", "warmup_steps", "total_steps", "decay_steps", "decay_fraction", "decay_shape"});
  lr_ = read_lr(options);
  min_lr_ = read_min_lr(options, lr_);
  warmup_steps_ = read_warmup(options);
  total_steps_ = read_total_steps(options, warmup_steps_);
  const int64_t after_warmup = total_steps_ - warmup_steps_;
  int64_t decay_steps = 0;
  if (options.has("decay_steps")) {
    options.reject_set({"decay_fraction"}, "does not apply when decay_steps is set (give one of the two)");
    decay_steps = options.get_int_in("decay_steps", 1, 1, after_warmup);
  } else {
    const double fraction = options.get_double("decay_fraction", 0.2);
    if (!(fraction > 0.0 && fraction <= 1.0))
      throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT,
                        "option 'decay_fraction' must be in (0, 1], got " + std::to_string(fraction));
    decay_steps = std::max<int64_t>(1, std::llround(fraction * static_cast<double>(after_warmup)));
  }
  decay_start_ = total_steps_ - decay_steps;
  shape_ = options.get_choice<DecayShape>(
      "decay_shape", "linear",
      {{"linear", DecayShape::linear}, {"cosine", DecayShape::cosine}, {"1-sqrt", DecayShape::one_minus_sqrt}});
}

double WarmupStableDecay::lr(int64_t step) const {
  check_step(step);
  if (step < warmup_steps_) return lr_ * warmup_factor(step, warmup_steps_);
  if (step < decay_start_) return lr_;
  if (step >= total_steps_) return min_lr_;
  const double progress = static_cast<double>(step - decay_start_) / static_cast<double>(total_steps_ - decay_start_);
  return decay(shape_, lr_, min_lr_, progress);
}

}  // namespace frugal::schedule_lr
