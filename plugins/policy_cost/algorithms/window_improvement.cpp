#include "algorithms/window_improvement.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
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

std::optional<int64_t> WindowImprovement::window_of(double time_s) const noexcept {
  // Compared against the same end_of() values a host is told, so a record
  // at exactly window_end() opens the next window whatever the rounding.
  int64_t k = index_ + 1;
  if (k > kMaxIndex) return std::nullopt;
  if (time_s < end_of(k)) return k;
  // The quotient is right to rounding, so a few steps correct it, unless
  // it is past kMaxIndex (or not a number) or window ends so far from 0
  // that consecutive ones round to the same value: then windows cannot be
  // told apart, and the loops below must not run on for ever looking.
  const double estimate = std::floor((time_s - origin_) / window_s_);
  if (!(estimate <= static_cast<double>(kMaxIndex))) return std::nullopt;
  k = std::max(k + 1, static_cast<int64_t>(estimate));
  constexpr int kMaxCorrection = 4;
  for (int i = 0; i < kMaxCorrection && k > index_ + 1 && time_s < end_of(k - 1); ++i) --k;
  for (int i = 0; i < kMaxCorrection && time_s >= end_of(k); ++i) ++k;
  if (k > kMaxIndex || time_s >= end_of(k) || (k > index_ + 1 && time_s < end_of(k - 1))) return std::nullopt;
  return k;
}

bool WindowImprovement::open(int64_t k) noexcept {
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
  return has_previous_ && has_last_;
}

bool WindowImprovement::add(double time_s, double loss) noexcept {
  bool compared = false;
  if (time_s >= end_) {
    if (const std::optional<int64_t> k = window_of(time_s))
      compared = open(*k);
    else
      restart(time_s);
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
  w.origin_ = in.at_least("window origin", 0.0);  // a job-clock time
  w.index_ = in.i64_in("window index", 0, kMaxIndex);
  w.sum_ = in.finite("window sum");
  w.count_ = in.counter("window count");
  w.has_last_ = in.flag("has last window");
  w.last_mean_ = in.finite("last window mean");
  w.has_previous_ = in.flag("has previous window");
  w.previous_mean_ = in.finite("previous window mean");
  w.end_ = w.end_of(w.index_);
  *this = w;
}

}  // namespace frugal::policy
