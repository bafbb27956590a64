// Learning-rate schedules as plain C++ classes (the plugin wraps them in
// the schedule vtable). Conventions, shared by all:
//   - steps are 0-based; a negative step is OUT_OF_RANGE;
//   - linear warm-up over W steps gives lr * (s + 1) / W at step s < W, so
//     no step trains with lr 0 and step W - 1 reaches the full rate;
//   - cosine decay runs over steps [W, total): progress p = (s - W) / (total - W),
//     lr(s) = min_lr + (lr - min_lr) * (1 + cos(pi * p)) / 2, and min_lr from
//     step `total` on.
// Every schedule is a pure function of the step, which is what makes them
// survive restarts: a job resumed at step s mid-cycle gets exactly the rate
// an uninterrupted run would have used.
#pragma once

#include <cstdint>

#include "frugal/sdk/plugin_support.hpp"

namespace frugal::schedule_lr {

// Options: lr (double > 0, default 1e-3).
class Constant {
 public:
  explicit Constant(const sdk::Options& options);
  [[nodiscard]] double lr(int64_t step) const;

 private:
  double lr_;
};

// Options: lr (default 1e-3), warmup_steps (int >= 0, default 0).
class LinearWarmup {
 public:
  explicit LinearWarmup(const sdk::Options& options);
  [[nodiscard]] double lr(int64_t step) const;

 private:
  double lr_;
  int64_t warmup_steps_;
};

// Options: lr (default 1e-3), min_lr (0 <= min_lr <= lr, default 0),
// warmup_steps (>= 0, default 0), total_steps (required, > warmup_steps).
class WarmupCosine {
 public:
  explicit WarmupCosine(const sdk::Options& options);
  [[nodiscard]] double lr(int64_t step) const;

 private:
  double lr_;
  double min_lr_;
  int64_t warmup_steps_;
  int64_t total_steps_;
};

// How a rate falls from `peak` to `floor` as progress p runs over [0, 1].
enum class DecayShape { linear, cosine, one_minus_sqrt };

// Warm restarts (SGDR, Loshchilov & Hutter 2017), with the decay inside a
// cycle linear or cosine. Options: lr (peak of the first cycle), min_lr,
// warmup_steps (one linear warm-up before the first cycle), cycle_steps
// (required, >= 1: the first cycle's length T0), cycle_mult (int >= 1:
// cycle i lasts T0 * mult^i), restart_decay (in (0, 1]: cycle i peaks at
// lr * restart_decay^i, never below min_lr), shape (cosine | linear).
// At a cycle's first step the rate is its peak; the step before a restart
// is the cycle's lowest.
class WarmRestarts {
 public:
  explicit WarmRestarts(const sdk::Options& options);
  [[nodiscard]] double lr(int64_t step) const;

 private:
  double lr_;
  double min_lr_;
  int64_t warmup_steps_;
  int64_t cycle_steps_;
  int64_t cycle_mult_;
  double restart_decay_;
  DecayShape shape_;
};

// Warmup-stable-decay (MiniCPM; Hagele et al. 2024): linear warm-up, the
// peak held, then a decay to min_lr over the last decay_steps before
// total_steps. Options: lr, min_lr, warmup_steps, total_steps (required),
// decay_steps (> 0; when absent, decay_fraction of the steps after warm-up,
// default 0.2, at least 1), decay_shape (linear | cosine | 1-sqrt).
class WarmupStableDecay {
 public:
  explicit WarmupStableDecay(const sdk::Options& options);
  [[nodiscard]] double lr(int64_t step) const;

 private:
  double lr_;
  double min_lr_;
  int64_t warmup_steps_;
  int64_t decay_start_;
  int64_t total_steps_;
  DecayShape shape_;
};

}  // namespace frugal::schedule_lr
