// A trace: spot availability and/or spot price over the job clock, as a
// step function. Time 0 is the job's start; the trace repeats with its
// period beyond its end (a 400-hour job outlives most recorded traces, and
// holding the last value would make spot either always or never available
// from then on). Queries are O(log segments) and allocate nothing: the
// engine asks them at every event of every run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace frugal::simulate {

struct TraceSegment {
  double start_s = 0.0;     // seconds from the trace's origin, strictly increasing, first 0
  bool available = true;    // spot capacity could be had (and was not reclaimed)
  double spot_price = 0.0;  // $ per node-hour; meaningful only when the trace has prices
};

class Trace {
 public:
  // `segments` sorted, first at 0, every start < period_s. The caller (a
  // reader) has validated the values. `source` and `format` are for reports.
  Trace(std::string source, std::string format, std::vector<TraceSegment> segments, double period_s,
        bool has_availability, bool has_prices);

  [[nodiscard]] const std::string& source() const { return source_; }
  [[nodiscard]] const std::string& format() const { return format_; }
  [[nodiscard]] const std::string& selection() const { return selection_; }
  void set_selection(std::string selection) { selection_ = std::move(selection); }
  [[nodiscard]] size_t segment_count() const { return segments_.size(); }
  [[nodiscard]] const std::vector<TraceSegment>& segments() const { return segments_; }
  [[nodiscard]] double period_s() const { return period_s_; }
  [[nodiscard]] bool has_availability() const { return has_availability_; }
  [[nodiscard]] bool has_prices() const { return has_prices_; }
  // Changes between available and unavailable within one period (cyclic).
  [[nodiscard]] size_t availability_changes() const { return available_runs_.size() + unavailable_runs_.size(); }

  [[nodiscard]] bool available_at(double t) const;
  // The first time >= t at which spot is unavailable (t itself when it is);
  // +infinity when the trace is never unavailable.
  [[nodiscard]] double next_unavailable(double t) const;
  // The first time >= t at which spot is available; +infinity when never.
  [[nodiscard]] double next_available(double t) const;
  // Integral of the spot price from 0 to t ($ x seconds per node-hour).
  [[nodiscard]] double price_integral(double t) const;
  // The mean price over [t0, t1] (the price at t0 when t1 == t0).
  [[nodiscard]] double mean_price(double t0, double t1) const;

  // Share of the period with spot available, and the time-weighted mean price.
  [[nodiscard]] double available_share() const;
  [[nodiscard]] double period_mean_price() const;

 private:
  [[nodiscard]] size_t segment_at(double offset) const;  // index of the segment containing offset in [0, period)
  [[nodiscard]] size_t segment_at_time(double t) const;  // the same for a job-clock time (wrapped)
  static double next_start_in(const std::vector<double>& starts, double t, double period);

  std::string source_;
  std::string format_;
  std::string selection_;  // e.g. which AWS zone/instance type was used
  std::vector<TraceSegment> segments_;
  std::vector<double> starts_;            // segments_[i].start_s, for binary search
  std::vector<double> price_prefix_;      // integral of the price from 0 to starts_[i]
  std::vector<double> unavailable_runs_;  // starts of maximal unavailable runs within one period
  std::vector<double> available_runs_;    // starts of maximal available runs within one period
  double period_s_;
  double period_integral_ = 0.0;
  bool has_availability_;
  bool has_prices_;
};

}  // namespace frugal::simulate
