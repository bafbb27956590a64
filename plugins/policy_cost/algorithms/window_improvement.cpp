#include "algorithms/window_improvement.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace frugal::policy {

WindowImprovement::WindowImprovement(double window_s) : window_s_(window_s) {
  if (!(std::isfinite(window_s) && window_s > 0.0)) throw std::invalid_argument("window_s must be finite and > 0");
  restart(0.0);
}

void WindowImprovement::restart(double origin_s) noexcept {
  origin_ = origin_s;
  index_ = 0;
  end_ = end_of(0);
  sum_ = 0.0;
  count_ = 0;
  has_last_ = has_previous_ = false;
  last_mean_ = previous_mean_ = 0.0;
}

bool WindowImprovement::add(double time_s, double loss) noexcept {
  bool compared = false;
  if (time_s >= end_) {
    // The sample's window: the first whose end lies past time_s. Compared
    // against the same end_of() values a host is told, so a record at
    // exactly window_end() opens the next window whatever the rounding.
    int64_t k = index_ + 1;
    if (time_s >= end_of(k)) {
      k = std::max(k + 1, static_cast<int64_t>(std::floor((time_s - origin_) / window_s_)));
      while (k > index_ + 1 && time_s < end_of(k - 1)) --k;
      while (time_s >= end_of(k)) ++k;
    }
    const bool closed_has = count_ > 0;
    const double closed_mean = closed_has ? sum_ / static_cast<double>(count_) : 0.0;
    if (k == index_ + 1) {
      has_previous_ = has_last_;
      previous_mean_ = last_mean_;
      has_last_ = closed_has;
      last_mean_ = closed_mean;
    } else {
      // Window k - 1 is empty; window k - 2 is the one just closed when
      // only one window was skipped.
      has_previous_ = k == index_ + 2 && closed_has;
      previous_mean_ = has_previous_ ? closed_mean : 0.0;
      has_last_ = false;
      last_mean_ = 0.0;
    }
    index_ = k;
    end_ = end_of(k);
    sum_ = 0.0;
    count_ = 0;
    compared = has_previous_ && has_last_;
  }
  sum_ += loss;
  ++count_;
  return compared;
}

double WindowImprovement::improvement() const noexcept {
  const double base = std::fabs(previous_mean_);
  if (base == 0.0) return 0.0;
  return (previous_mean_ - last_mean_) / base;
}

void WindowImprovement::save(sdk::StateWriter& out) const {
  out.f64(origin_).i64(index_).f64(sum_).i64(count_);
  out.flag(has_last_).f64(last_mean_).flag(has_previous_).f64(previous_mean_);
}

void WindowImprovement::load(sdk::StateReader& in) {
  WindowImprovement w(window_s_);
  w.origin_ = in.f64("window origin");
  w.index_ = in.i64("window index");
  w.sum_ = in.f64("window sum");
  w.count_ = in.i64("window count");
  w.has_last_ = in.flag("has last window");
  w.last_mean_ = in.f64("last window mean");
  w.has_previous_ = in.flag("has previous window");
  w.previous_mean_ = in.f64("previous window mean");
  if (!std::isfinite(w.origin_) || w.index_ < 0 || w.count_ < 0 || !std::isfinite(w.sum_) ||
      !std::isfinite(w.last_mean_) || !std::isfinite(w.previous_mean_))
    in.corrupted("loss window fields out of range");
  w.end_ = w.end_of(w.index_);
  *this = w;
}

}  // namespace frugal::policy
