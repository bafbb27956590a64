#include "algorithms/early_stopping.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace frugal::policy {

EarlyStopping::EarlyStopping(int64_t patience, double min_delta, DeltaMode mode)
    : patience_(patience), min_delta_(min_delta), mode_(mode) {
  if (patience < 1) throw std::invalid_argument("patience must be >= 1");
  if (!(std::isfinite(min_delta) && min_delta >= 0.0)) throw std::invalid_argument("min_delta must be finite, >= 0");
}

bool EarlyStopping::improves(double value) const noexcept {
  if (!has_best_) return true;
  const double needed = mode_ == DeltaMode::absolute ? min_delta_ : min_delta_ * std::fabs(best_);
  return best_ - value > needed;
}

bool EarlyStopping::observe(double value, int64_t step) noexcept {
  if (improves(value)) {
    has_best_ = true;
    best_ = value;
    best_step_ = step;
    stale_ = 0;
    return true;
  }
  ++stale_;
  return false;
}

void EarlyStopping::save(sdk::StateWriter& out) const { out.flag(has_best_).f64(best_).i64(best_step_).i64(stale_); }

void EarlyStopping::load(sdk::StateReader& in) {
  const bool has_best = in.flag("has best");
  const double best = in.finite("best");
  const int64_t best_step = in.i64_in("best step", 0, std::numeric_limits<int64_t>::max());
  // Before the first evaluation nothing can be stale.
  const int64_t stale =
      has_best ? in.counter("evaluations since the best") : in.i64_in("evaluations since the best", 0, 0);
  has_best_ = has_best;
  best_ = best;
  best_step_ = best_step;
  stale_ = stale;
}

}  // namespace frugal::policy
