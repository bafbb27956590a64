#include "adamw.hpp"

#include <cmath>
#include <stdexcept>

namespace frugal_demo {

template <class T>
AdamW<T>::AdamW(std::span<T> params, std::span<const T> grads, const AdamWOptions& options,
                std::vector<std::uint8_t> decay_mask)
    : params_(params),
      grads_(grads),
      options_(options),
      decay_mask_(std::move(decay_mask)),
      state_(2 * params.size(), T(0)) {
  if (grads.size() != params.size()) throw std::invalid_argument("AdamW: params and grads differ in size");
  if (!decay_mask_.empty() && decay_mask_.size() != params.size())
    throw std::invalid_argument("AdamW: decay mask size mismatch");
}

template <class T>
double AdamW<T>::step(double lr) {
  // The norm in double, serially: same value whatever the thread count.
  double sum_sq = 0;
  for (const T g : grads_) sum_sq += static_cast<double>(g) * static_cast<double>(g);
  const double norm = std::sqrt(sum_sq);
  double clip = 1.0;
  if (options_.clip_norm > 0 && norm > options_.clip_norm) clip = options_.clip_norm / norm;

  ++steps_;
  const double t = static_cast<double>(steps_);
  const T b1 = static_cast<T>(options_.beta1);
  const T b2 = static_cast<T>(options_.beta2);
  const T c = static_cast<T>(clip);
  const T step_size = static_cast<T>(lr / (1.0 - std::pow(options_.beta1, t)));
  const T v_correction = static_cast<T>(1.0 / std::sqrt(1.0 - std::pow(options_.beta2, t)));
  const T eps = static_cast<T>(options_.eps);
  const T decay = static_cast<T>(lr * options_.weight_decay);
  T* m = state_.data();
  T* v = state_.data() + params_.size();
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const T g = grads_[i] * c;
    m[i] = b1 * m[i] + (T(1) - b1) * g;
    v[i] = b2 * v[i] + (T(1) - b2) * g * g;
    // p -= lr * (m_hat / (sqrt(v_hat) + eps) + wd * p), decay on the old p.
    T p = params_[i];
    if (decay_mask_.empty() || decay_mask_[i] != 0) p -= decay * p;
    p -= step_size * m[i] / (std::sqrt(v[i]) * v_correction + eps);
    params_[i] = p;
  }
  return norm;
}

template class AdamW<float>;
template class AdamW<double>;

}  // namespace frugal_demo
