// A progress bar for long simulations, drawn on stderr only when stderr is
// a terminal (never in pipes, logs or tests) and only once the work has
// taken long enough to be worth watching.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

namespace frugal::simulate {

class ProgressBar {
 public:
  // Watches `done` (out of `total`) from a thread of its own.
  ProgressBar(const std::atomic<uint64_t>& done, uint64_t total);
  ~ProgressBar();  // stops and erases the bar
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

 private:
  void watch();

  const std::atomic<uint64_t>& done_;
  uint64_t total_;
  std::atomic<bool> stop_{false};
  bool drawn_ = false;
  std::thread thread_;
};

}  // namespace frugal::simulate
