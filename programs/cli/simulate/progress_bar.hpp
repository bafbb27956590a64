// A progress bar for long simulations, drawn on stderr only when stderr is
// a terminal (never in pipes, logs or tests) and only once the work has
// taken long enough to be worth watching; it redraws at most 10 times a
// second, in place.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

namespace frugal::simulate {

class ProgressBar {
 public:
  // Watches `runs` (out of `total_runs`) and `events` (out of about
  // `expected_events`, 0: unknown) from a thread of its own. The events
  // move the bar while runs are long (one run of millions of events).
  ProgressBar(const std::atomic<uint64_t>& runs, uint64_t total_runs, const std::atomic<uint64_t>& events,
              double expected_events);
  ~ProgressBar();  // stops and erases the bar
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // The share of the work done: the finished runs' share, or the events'
  // when that is further along, but below 1 until every run finished (an
  // estimate of events is only an estimate).
  static double share(uint64_t runs, uint64_t total_runs, uint64_t events, double expected_events);

 private:
  void watch();

  const std::atomic<uint64_t>& runs_;
  uint64_t total_runs_;
  const std::atomic<uint64_t>& events_;
  double expected_events_;
  std::atomic<bool> stop_{false};
  bool drawn_ = false;
  std::thread thread_;
};

}  // namespace frugal::simulate
