// How much the loss improved from one time window to the next: the mean
// loss over consecutive windows of window_s seconds, counted from an origin
// (a restart of the windows). When a sample closes a window and the two
// most recent complete windows both hold samples, the relative improvement
//   r = (mean of the previous window - mean of the last window) / |mean of the previous window|
// is available. O(1) per sample and O(1) state: a running sum for the open
// window and the means of the two closed ones, so nothing is rescanned and
// no sample is stored.
#pragma once

#include <cstdint>
#include <optional>

#include "frugal/sdk/state_blob.hpp"

namespace frugal::policy {

class WindowImprovement {
 public:
  // The most windows counted from one origin: indices stay exact as
  // doubles and far from int64 overflow.
  static constexpr int64_t kMaxIndex = sdk::StateReader::kMaxCounter;

  // window_s finite and > 0.
  explicit WindowImprovement(double window_s);

  // Drops every sample; windows are [origin + k w, origin + (k + 1) w).
  void restart(double origin_s) noexcept;

  // Adds a sample at time_s >= the origin and >= every earlier sample's.
  // Returns true when the sample closed a window and improvement() is
  // valid: the two windows just before the sample's own are complete and
  // hold samples. A window left empty (records further apart than
  // window_s) makes the next comparison wait for two filled windows again.
  // When the sample's window cannot be counted exactly (more than
  // kMaxIndex windows since the origin, or times so large that window ends
  // round together), the windows restart at the sample: no comparison, but
  // bounded work and no overflow, whatever the times.
  bool add(double time_s, double loss) noexcept;

  // 0 when the previous mean is 0 (no scale to compare against).
  [[nodiscard]] double improvement() const noexcept;
  [[nodiscard]] double previous_mean() const noexcept { return previous_mean_; }
  [[nodiscard]] double last_mean() const noexcept { return last_mean_; }
  // The end of the open window: when the next comparison can happen.
  [[nodiscard]] double window_end() const noexcept { return end_; }
  [[nodiscard]] double window_s() const noexcept { return window_s_; }
  [[nodiscard]] double origin() const noexcept { return origin_; }
  // Index of the open window since the origin (0-based).
  [[nodiscard]] int64_t window_index() const noexcept { return index_; }

  void save(sdk::StateWriter& out) const;
  void load(sdk::StateReader& in);

  friend bool operator==(const WindowImprovement&, const WindowImprovement&) = default;

 private:
  // The index of the window holding time_s (>= end_), or nothing when it
  // cannot be counted exactly (see add()).
  [[nodiscard]] std::optional<int64_t> window_of(double time_s) const noexcept;
  // Closes the open window and opens window k (> index_); true when the
  // two windows before k both hold samples.
  bool open(int64_t k) noexcept;
  [[nodiscard]] double end_of(int64_t index) const noexcept {
    return origin_ + static_cast<double>(index + 1) * window_s_;
  }

  double window_s_;
  double origin_ = 0.0;
  int64_t index_ = 0;
  double end_ = 0.0;
  double sum_ = 0.0;  // of the open window
  int64_t count_ = 0;
  bool has_last_ = false;  // window index_ - 1 held samples
  double last_mean_ = 0.0;
  bool has_previous_ = false;  // window index_ - 2 held samples
  double previous_mean_ = 0.0;
};

}  // namespace frugal::policy
