#include "lr_schedules.hpp"

#include <cmath>
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
    throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "option 'lr' must be a finite number > 0, got " + std::to_string(lr));
  return lr;
}

int64_t read_warmup(const sdk::Options& options) {
  const int64_t warmup = options.get_int("warmup_steps", 0);
  if (warmup < 0)
    throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "option 'warmup_steps' must be >= 0, got " + std::to_string(warmup));
  return warmup;
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
  min_lr_ = options.get_double("min_lr", 0.0);
  if (!std::isfinite(min_lr_) || min_lr_ < 0.0 || min_lr_ > lr_)
    throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "option 'min_lr' must be in [0, lr], got " + std::to_string(min_lr_));
  warmup_steps_ = read_warmup(options);
  options.require("total_steps");
  total_steps_ = options.get_int("total_steps", 0);
  if (total_steps_ <= warmup_steps_)
    throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "option 'total_steps' (" + std::to_string(total_steps_) +
                                                       ") must be greater than 'warmup_steps' (" +
                                                       std::to_string(warmup_steps_) + ")");
}

double WarmupCosine::lr(int64_t step) const {
  check_step(step);
  if (step < warmup_steps_) return lr_ * warmup_factor(step, warmup_steps_);
  if (step >= total_steps_) return min_lr_;
  const double progress =
      static_cast<double>(step - warmup_steps_) / static_cast<double>(total_steps_ - warmup_steps_);
  return min_lr_ + (lr_ - min_lr_) * 0.5 * (1.0 + std::cos(std::numbers::pi * progress));
}

}  // namespace frugal::schedule_lr
