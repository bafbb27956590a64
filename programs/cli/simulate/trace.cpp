#include "trace.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace frugal::simulate {

Trace::Trace(std::string source, std::string format, std::vector<TraceSegment> segments, double period_s,
             bool has_availability, bool has_prices)
    : source_(std::move(source)),
      format_(std::move(format)),
      segments_(std::move(segments)),
      period_s_(period_s),
      has_availability_(has_availability),
      has_prices_(has_prices) {
  starts_.reserve(segments_.size());
  price_prefix_.reserve(segments_.size());
  double integral = 0.0;
  for (size_t i = 0; i < segments_.size(); ++i) {
    starts_.push_back(segments_[i].start_s);
    price_prefix_.push_back(integral);
    const double end = i + 1 < segments_.size() ? segments_[i + 1].start_s : period_s_;
    integral += segments_[i].spot_price * (end - segments_[i].start_s);
    // A run starts where availability differs from the segment before it,
    // cyclically: the period's last segment precedes the first.
    const bool previous = segments_[i > 0 ? i - 1 : segments_.size() - 1].available;
    if (previous != segments_[i].available)
      (segments_[i].available ? available_runs_ : unavailable_runs_).push_back(segments_[i].start_s);
  }
  period_integral_ = integral;
}

size_t Trace::segment_at(double offset) const {
  const auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  return static_cast<size_t>(it - starts_.begin()) - 1;  // starts_[0] == 0 <= offset
}

size_t Trace::segment_at_time(double t) const {
  const double cycle = std::floor(t / period_s_);
  // Rounding can put t - cycle * period a hair outside [0, period).
  return segment_at(std::clamp(t - cycle * period_s_, 0.0, std::nextafter(period_s_, 0.0)));
}

bool Trace::available_at(double t) const { return segments_[segment_at_time(t)].available; }

double Trace::next_start_in(const std::vector<double>& starts, double t, double period) {
  if (starts.empty()) return std::numeric_limits<double>::infinity();
  const double cycle = std::floor(t / period);
  const double offset = t - cycle * period;
  const auto it = std::lower_bound(starts.begin(), starts.end(), offset);
  if (it != starts.end()) return cycle * period + *it;
  return (cycle + 1.0) * period + starts.front();
}

double Trace::next_unavailable(double t) const {
  if (!available_at(t)) return t;
  return std::max(t, next_start_in(unavailable_runs_, t, period_s_));
}

double Trace::next_available(double t) const {
  if (available_at(t)) return t;
  return std::max(t, next_start_in(available_runs_, t, period_s_));
}

double Trace::price_integral(double t) const {
  const double cycle = std::floor(t / period_s_);
  const double offset = std::clamp(t - cycle * period_s_, 0.0, period_s_);
  const size_t i = segment_at(std::min(offset, std::nextafter(period_s_, 0.0)));
  return cycle * period_integral_ + price_prefix_[i] + segments_[i].spot_price * (offset - starts_[i]);
}

double Trace::mean_price(double t0, double t1) const {
  if (!(t1 > t0)) return segments_[segment_at_time(t0)].spot_price;
  return (price_integral(t1) - price_integral(t0)) / (t1 - t0);
}

double Trace::available_share() const {
  double up = 0.0;
  for (size_t i = 0; i < segments_.size(); ++i) {
    const double end = i + 1 < segments_.size() ? segments_[i + 1].start_s : period_s_;
    if (segments_[i].available) up += end - segments_[i].start_s;
  }
  return up / period_s_;
}

double Trace::period_mean_price() const { return period_integral_ / period_s_; }

}  // namespace frugal::simulate
