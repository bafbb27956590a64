// Dynamic loss scaling for FP16 / FP8 training, with the semantics of
// PyTorch's GradScaler (and Megatron / DeepSpeed, plus their min and max):
// the loss is multiplied by scale() before backward, the gradients by
// inv_scale() before the optimizer step, and after each step
// update(found_inf) with whether any gradient was NaN or Inf:
//   - found_inf: the step must be skipped; scale = max(scale * backoff,
//     min_scale); the clean-step counter resets to 0;
//   - otherwise: the counter goes up by one; when it reaches
//     growth_interval, scale = min(scale * growth, max_scale) and the counter
//     resets to 0 (also when the scale is already at max_scale).
// The scale is a double: it is host arithmetic, and powers of two stay exact
// either way.
#pragma once

#include <cstdint>

namespace frugal::quant {

struct LossScalerConfig {
  double init_scale = 65536.0;     // 2^16, PyTorch's default
  double growth_factor = 2.0;      // > 1
  double backoff_factor = 0.5;     // in (0, 1)
  int64_t growth_interval = 2000;  // >= 1 clean steps between growths
  double min_scale = 1.0;          // > 0; Megatron's floor: below 1 the loss is scaled down
  double max_scale = 16777216.0;   // 2^24, finite; min_scale <= init_scale <= max_scale
};

struct LossScalerState {
  double scale = 1.0;
  int64_t clean_steps = 0;    // since the last growth or overflow
  int64_t skipped_steps = 0;  // total update(true) calls (saturating at INT64_MAX)
};

class LossScaler {
 public:
  // Throws std::invalid_argument naming the bad field.
  explicit LossScaler(const LossScalerConfig& config);

  // Returns true when the optimizer step may be applied (no overflow).
  bool update(bool found_inf) noexcept;

  [[nodiscard]] double scale() const noexcept { return state_.scale; }
  [[nodiscard]] double inv_scale() const noexcept { return 1.0 / state_.scale; }
  [[nodiscard]] const LossScalerState& state() const noexcept { return state_; }
  [[nodiscard]] const LossScalerConfig& config() const noexcept { return config_; }

  // Restores a saved state (a checkpoint). Throws std::invalid_argument when
  // the scale is outside [min_scale, max_scale] or a counter is negative or
  // clean_steps >= growth_interval.
  void restore(const LossScalerState& state);

 private:
  LossScalerConfig config_;
  LossScalerState state_;
};

}  // namespace frugal::quant
