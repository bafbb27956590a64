// Checkpoint intervals that minimise the expected lost time, and the two
// quantities they need, learnt from telemetry.
//
// Young (1974): tau = sqrt(2 delta M). Daly (2006), "A higher order estimate
// of the optimum checkpoint interval for restart dumps", eq. 37:
//   tau = sqrt(2 delta M) [1 + 1/3 sqrt(delta / (2M)) + delta / (18 M)] - delta   for delta < 2M,
//   tau = M                                                                      otherwise,
// with delta the cost of one checkpoint and M the mean time between
// failures. Published: delta = 5 min gives 116.7 min at M = 24 h, 56.7 min
// at 6 h and 9.14 min at 15 min.
#pragma once

#include <cstdint>

#include "frugal/sdk/state_blob.hpp"

namespace frugal::policy {

// Seconds; cost_s > 0, mtbf_s > 0.
[[nodiscard]] double young_interval(double cost_s, double mtbf_s) noexcept;
[[nodiscard]] double daly_interval(double cost_s, double mtbf_s) noexcept;

// delta: an exponential moving average (alpha 0.3) of measured full-
// checkpoint stalls, seeded with a prior cost, so one slow save moves it
// but does not own it.
// M: (prior MTBF + job-clock seconds observed) / (1 + restarts observed).
// The prior counts as one pseudo-failure: before any restart M is the prior
// plus the time survived, and each restart pulls it toward the measured
// time per failure.
class CheckpointCostModel {
 public:
  static constexpr double kCostAlpha = 0.3;

  // Both finite and > 0.
  CheckpointCostModel(double prior_cost_s, double prior_mtbf_s);

  // The stall of a completed full checkpoint (finite, > 0).
  void observe_stall(double stall_s) noexcept { cost_s_ += kCostAlpha * (stall_s - cost_s_); }
  void observe_restart() noexcept { ++restarts_; }
  // The job clock of the latest record: every second of it was observed.
  void observe_clock(double job_clock_s) noexcept { clock_s_ = job_clock_s; }

  [[nodiscard]] double cost_s() const noexcept { return cost_s_; }
  [[nodiscard]] double mtbf_s() const noexcept {
    return (prior_mtbf_s_ + clock_s_) / (1.0 + static_cast<double>(restarts_));
  }
  [[nodiscard]] double interval_s() const noexcept { return daly_interval(cost_s(), mtbf_s()); }
  [[nodiscard]] int64_t restarts() const noexcept { return restarts_; }

  // The learnt part (cost, clock, restarts); the prior MTBF is an option.
  void save(sdk::StateWriter& out) const;
  void load(sdk::StateReader& in);

  friend bool operator==(const CheckpointCostModel&, const CheckpointCostModel&) = default;

 private:
  double prior_mtbf_s_;
  double cost_s_;
  double clock_s_ = 0.0;
  int64_t restarts_ = 0;
};

}  // namespace frugal::policy
