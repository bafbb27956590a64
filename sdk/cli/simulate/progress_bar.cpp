#include "progress_bar.hpp"

#include <unistd.h>

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

ProgressBar::ProgressBar(const std::atomic<uint64_t>& done, uint64_t total) : done_(done), total_(total) {
  if (isatty(STDERR_FILENO) != 0 && total_ > 0) thread_ = std::thread([this] { watch(); });
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
    const uint64_t done = done_.load(std::memory_order_relaxed);
    const double share = static_cast<double>(done) / static_cast<double>(total_);
    const int filled = static_cast<int>(share * kBarWidth);
    std::string bar(static_cast<size_t>(filled), '#');
    bar.resize(kBarWidth, '.');
    const double seconds = std::chrono::duration<double>(elapsed).count();
    const double eta = share > 0 ? seconds * (1.0 - share) / share : 0.0;
    std::fprintf(stderr, "\r  simulating [%s] %3.0f%%  %llu/%llu runs  %.0f s left ", bar.c_str(), 100.0 * share,
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_), eta);
    std::fflush(stderr);
    drawn_ = true;
  }
  if (drawn_) {
    std::fprintf(stderr, "\r%*s\r", 90, "");
    std::fflush(stderr);
  }
}

}  // namespace frugal::simulate
