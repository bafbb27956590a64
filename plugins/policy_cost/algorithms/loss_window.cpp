#include "algorithms/loss_window.hpp"

#include <cmath>
#include <span>
#include <stdexcept>

#include "algorithms/trend_test.hpp"

namespace frugal::policy {
namespace {

int sign_of(double d) noexcept { return (d > 0.0) - (d < 0.0); }

}  // namespace

LossWindow::LossWindow(std::size_t capacity) : time_(capacity), loss_(capacity) {
  if (capacity < 2) throw std::invalid_argument("a loss window needs at least 2 samples");
}

void LossWindow::push(double time_s, double loss) noexcept {
  if (full()) {
    // The oldest sample leaves: it was the first of every pair it was in.
    const double old = loss_[head_];
    for (std::size_t i = 1; i < size_; ++i) s_ -= sign_of(loss_[slot(i)] - old);
    head_ = slot(1);
    --size_;
  }
  // The new sample is the last of a pair with every sample present.
  for (std::size_t i = 0; i < size_; ++i) s_ += sign_of(loss - loss_[slot(i)]);
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
    times[i] = in.f64("sample time");
    losses[i] = in.f64("sample loss");
    if (!std::isfinite(times[i]) || !std::isfinite(losses[i])) in.corrupted("a loss sample is not finite");
    if (i > 0 && times[i] < times[i - 1]) in.corrupted("loss samples are not in time order");
  }
  time_ = std::move(times);
  loss_ = std::move(losses);
  head_ = 0;
  size_ = n;
  s_ = policy::mann_kendall_s(std::span<const double>(loss_).first(n));
}

}  // namespace frugal::policy
