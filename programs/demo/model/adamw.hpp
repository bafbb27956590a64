// AdamW (Loshchilov & Hutter): bias-corrected Adam moments, weight decay
// decoupled from the gradient (p -= lr * wd * p), optional clipping of the
// global gradient norm. The learning rate comes with each step, so a
// scheduler drives it. m and v share one contiguous buffer [m ; v] (one
// checkpoint tensor).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace frugal_demo {

struct AdamWOptions {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.01;
  double clip_norm = 0.0;  // <= 0: no clipping
};

template <class T>
class AdamW {
 public:
  // params and grads: same size, outliving the optimizer. decay_mask: one
  // flag per scalar (ParameterSet::decay_mask()); empty = decay everything.
  AdamW(std::span<T> params, std::span<const T> grads, const AdamWOptions& options,
        std::vector<std::uint8_t> decay_mask = {});

  // One update; returns the global gradient norm before clipping.
  double step(double lr);

  std::span<T> state() { return state_; }  // [m ; v], 2 * size
  std::span<T> m() { return std::span<T>(state_).first(params_.size()); }
  std::span<T> v() { return std::span<T>(state_).subspan(params_.size()); }
  [[nodiscard]] std::int64_t steps() const { return steps_; }
  void set_steps(std::int64_t steps) { steps_ = steps; }  // after restoring state()
  [[nodiscard]] const AdamWOptions& options() const { return options_; }

 private:
  std::span<T> params_;
  std::span<const T> grads_;
  AdamWOptions options_;
  std::vector<std::uint8_t> decay_mask_;
  std::vector<T> state_;
  std::int64_t steps_ = 0;
};

}  // namespace frugal_demo
