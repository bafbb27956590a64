#include "algorithms/loss_window.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <stdexcept>

#include "algorithms/trend_test.hpp"

namespace frugal::policy {
namespace {

// sum over p[0..n) of sign(p[k] - v), in a loop the compiler can vectorise.
int64_t sign_sum(const double* p, std::size_t n, double v) noexcept {
  int64_t s = 0;
  for (std::size_t k = 0; k < n; ++k) s += static_cast<int64_t>(p[k] > v) - static_cast<int64_t>(p[k] < v);
  return s;
}

}  // namespace

LossWindow::LossWindow(std::size_t capacity) : time_(capacity), loss_(capacity) {
  if (capacity < 2) throw std::invalid_argument("a loss window needs at least 2 samples");
}

int64_t LossWindow::sign_sum_present(double v) const noexcept {
  // The ring's samples lie in at most two contiguous runs.
  const std::size_t first = std::min(size_, capacity() - head_);
  return sign_sum(loss_.data() + head_, first, v) + sign_sum(loss_.data(), size_ - first, v);
}

void LossWindow::push(double time_s, double loss) noexcept {
  if (full()) {
    // The oldest sample leaves: it was the first of every pair it was in
    // (its pair with itself counts 0).
    s_ -= sign_sum_present(loss_[head_]);
    head_ = slot(1);
    --size_;
  }
  // The new sample is the last of a pair with every sample present.
  s_ -= sign_sum_present(loss);
  const std::size_t at = slot(size_);
  time_[at] = time_s;
  loss_[at] = loss;
  ++size_;
}

void LossWindow::copy_to(std::vector<double>& time_s, std::vector<double>& loss) const {
  time_s.resize(size_);
  loss.resize(size_);
  for (std::size_t i = 0; i < size_; ++i) {
    time_s[i] = time_[slot(i)];
    loss[i] = loss_[slot(i)];
  }
}

void LossWindow::save(sdk::StateWriter& out) const {
  out.u64(size_);
  for (std::size_t i = 0; i < size_; ++i) out.f64(time_[slot(i)]).f64(loss_[slot(i)]);
}

void LossWindow::load(sdk::StateReader& in) {
  const auto n = static_cast<std::size_t>(in.count("loss samples", capacity(), 16));
  std::vector<double> times(capacity()), losses(capacity());
  for (std::size_t i = 0; i < n; ++i) {
    // Job-clock times (>= 0), in order; finite losses.
    times[i] = in.at_least("sample time", i > 0 ? times[i - 1] : 0.0);
    losses[i] = in.finite("sample loss");
  }
  time_ = std::move(times);
  loss_ = std::move(losses);
  head_ = 0;
  size_ = n;
  s_ = policy::mann_kendall_s(std::span<const double>(loss_).first(n));
}

}  // namespace frugal::policy
