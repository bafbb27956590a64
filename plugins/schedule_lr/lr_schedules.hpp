// Learning-rate schedules as plain C++ classes (the plugin wraps them in
// the schedule vtable). Conventions, shared by all:
//   - steps are 0-based; a negative step is OUT_OF_RANGE;
//   - linear warm-up over W steps gives lr * (s + 1) / W at step s < W, so
//     no step trains with lr 0 and step W - 1 reaches the full rate;
//   - cosine decay runs over steps [W, total): progress p = (s - W) / (total - W),
//     lr(s) = min_lr + (lr - min_lr) * (1 + cos(pi * p)) / 2, and min_lr from
//     step `total` on.
#pragma once

#include <cstdint>

#include "frugal/sdk/plugin_support.hpp"

namespace frugal::schedule_lr {

// Options: lr (double > 0, default 1e-3).
class Constant {
 public:
  explicit Constant(const sdk::Options& options);
  double lr(int64_t step) const;

 private:
  double lr_;
};

// Options: lr (default 1e-3), warmup_steps (int >= 0, default 0).
class LinearWarmup {
 public:
  explicit LinearWarmup(const sdk::Options& options);
  double lr(int64_t step) const;

 private:
  double lr_;
  int64_t warmup_steps_;
};

// Options: lr (default 1e-3), min_lr (0 <= min_lr <= lr, default 0),
// warmup_steps (>= 0, default 0), total_steps (required, > warmup_steps).
class WarmupCosine {
 public:
  explicit WarmupCosine(const sdk::Options& options);
  double lr(int64_t step) const;

 private:
  double lr_;
  double min_lr_;
  int64_t warmup_steps_;
  int64_t total_steps_;
};

}  // namespace frugal::schedule_lr
