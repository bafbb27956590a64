// The last `capacity` loss samples (time, loss) in a ring, with
// Mann-Kendall's S kept up to date as samples enter and leave: O(capacity)
// per sample instead of O(capacity^2), so the trend can be tested at every
// sample and the quadratic line fit is paid only when the trend is
// significant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "frugal/sdk/state_blob.hpp"

namespace frugal::policy {

class LossWindow {
 public:
  // capacity >= 2.
  explicit LossWindow(std::size_t capacity);

  // Appends a sample, dropping the oldest when full.
  void push(double time_s, double loss) noexcept;

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return time_.size(); }
  [[nodiscard]] bool full() const noexcept { return size_ == capacity(); }
  // The newest sample's time; 0 when empty.
  [[nodiscard]] double latest_time() const noexcept { return size_ > 0 ? time_[slot(size_ - 1)] : 0.0; }
  // Mann-Kendall's S over the samples, oldest first.
  [[nodiscard]] int64_t mann_kendall_s() const noexcept { return s_; }

  // The samples, oldest first (resizes both vectors to size()).
  void copy_to(std::vector<double>& time_s, std::vector<double>& loss) const;

  // Samples oldest first; load() checks they fit the capacity, are finite
  // and in time order, and recomputes S from them.
  void save(sdk::StateWriter& out) const;
  void load(sdk::StateReader& in);

  friend bool operator==(const LossWindow&, const LossWindow&) = default;

 private:
  // sum over the samples present of sign(sample - v).
  [[nodiscard]] int64_t sign_sum_present(double v) const noexcept;
  [[nodiscard]] std::size_t slot(std::size_t i) const noexcept {  // i-th oldest
    const std::size_t at = head_ + i;
    return at < capacity() ? at : at - capacity();
  }

  std::vector<double> time_;
  std::vector<double> loss_;
  std::size_t head_ = 0;  // slot of the oldest sample
  std::size_t size_ = 0;
  int64_t s_ = 0;
};

}  // namespace frugal::policy
