// Early stopping by patience: count the evaluations since the watched
// value last improved on its best by more than min_delta (absolute) or
// min_delta x |best| (relative); the patience is spent when the count
// reaches it.
#pragma once

#include <cstdint>

#include "frugal/sdk/state_blob.hpp"

namespace frugal::policy {

enum class DeltaMode : uint8_t { absolute = 0, relative = 1 };

class EarlyStopping {
 public:
  // patience >= 1; min_delta finite and >= 0.
  EarlyStopping(int64_t patience, double min_delta, DeltaMode mode);

  // One evaluation: `value` (finite, lower is better) at `step`. The first
  // one sets the best. Returns true when it improved on the best.
  bool observe(double value, int64_t step) noexcept;

  [[nodiscard]] bool improves(double value) const noexcept;
  [[nodiscard]] bool exhausted() const noexcept { return stale_ >= patience_; }
  [[nodiscard]] bool has_best() const noexcept { return has_best_; }
  [[nodiscard]] double best() const noexcept { return best_; }
  [[nodiscard]] int64_t best_step() const noexcept { return best_step_; }
  // Evaluations since the best.
  [[nodiscard]] int64_t stale() const noexcept { return stale_; }
  [[nodiscard]] int64_t patience() const noexcept { return patience_; }

  void save(sdk::StateWriter& out) const;
  void load(sdk::StateReader& in);

  friend bool operator==(const EarlyStopping&, const EarlyStopping&) = default;

 private:
  int64_t patience_;
  double min_delta_;
  DeltaMode mode_;
  bool has_best_ = false;
  double best_ = 0.0;
  int64_t best_step_ = 0;
  int64_t stale_ = 0;
};

}  // namespace frugal::policy
