#include "progress_bar.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

namespace frugal::simulate {
namespace {

// Below this a bar would only flicker.
constexpr auto kShowAfter = std::chrono::milliseconds(500);
constexpr auto kRedrawEvery = std::chrono::milliseconds(100);
constexpr int kBarWidth = 40;

}  // namespace

ProgressBar::ProgressBar(const std::atomic<uint64_t>& runs, uint64_t total_runs, const std::atomic<uint64_t>& events,
                         double expected_events)
    : runs_(runs), total_runs_(total_runs), events_(events), expected_events_(expected_events) {
  if (isatty(STDERR_FILENO) != 0 && total_runs_ > 0) thread_ = std::thread([this] { watch(); });
}

double ProgressBar::share(uint64_t runs, uint64_t total_runs, uint64_t events, double expected_events) {
  if (total_runs == 0 || runs >= total_runs) return 1.0;
  const double by_runs = static_cast<double>(runs) / static_cast<double>(total_runs);
  const double by_events = expected_events > 0.0 ? static_cast<double>(events) / expected_events : 0.0;
  return std::clamp(std::max(by_runs, by_events), 0.0, 0.99);
}

ProgressBar::~ProgressBar() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void ProgressBar::watch() {
  const auto start = std::chrono::steady_clock::now();
  while (!stop_.load()) {
    std::this_thread::sleep_for(kRedrawEvery);
    const auto elapsed = std::chrono::steady_clock::now() - start;
    if (elapsed < kShowAfter || stop_.load()) continue;
    const uint64_t done = runs_.load(std::memory_order_relaxed);
    const uint64_t events = events_.load(std::memory_order_relaxed);
    const double share = ProgressBar::share(done, total_runs_, events, expected_events_);
    const int filled = static_cast<int>(share * kBarWidth);
    std::string bar(static_cast<size_t>(filled), '#');
    bar.resize(kBarWidth, '.');
    const double seconds = std::chrono::duration<double>(elapsed).count();
    const double eta = share > 0 ? seconds * (1.0 - share) / share : 0.0;
    std::fprintf(stderr, "\r  simulating [%s] %3.0f%%  %llu/%llu runs  %.3g events  %.0f s left ", bar.c_str(),
                 100.0 * share, static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_runs_),
                 static_cast<double>(events), eta);
    std::fflush(stderr);
    drawn_ = true;
  }
  if (drawn_) {
    std::fprintf(stderr, "\r%*s\r", 110, "");
    std::fflush(stderr);
  }
}

}  // namespace frugal::simulate
