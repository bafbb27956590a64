#include "rms_norm.hpp"

#include <cmath>
#include <stdexcept>

namespace frugal_demo {

template <class T>
RmsNorm<T>::RmsNorm(std::size_t dim, ParamView<T> gain, double eps)
    : dim_(dim), gain_(gain), eps_(static_cast<T>(eps)) {
  if (gain.value.size() != dim) throw std::invalid_argument("RmsNorm: gain size mismatch");
}

template <class T>
std::vector<T> RmsNorm<T>::forward(std::span<const T> x) {
  const std::size_t rows = x.size() / dim_;
  x_.assign(x.begin(), x.end());
  inv_rms_.resize(rows);
  std::vector<T> y(x.size());
  for (std::size_t r = 0; r < rows; ++r) {
    const T* xr = x.data() + r * dim_;
    T sum_sq = 0;
    for (std::size_t j = 0; j < dim_; ++j) sum_sq += xr[j] * xr[j];
    const T inv = T(1) / std::sqrt(sum_sq / static_cast<T>(dim_) + eps_);
    inv_rms_[r] = inv;
    T* yr = y.data() + r * dim_;
    for (std::size_t j = 0; j < dim_; ++j) yr[j] = xr[j] * inv * gain_.value[j];
  }
  return y;
}

template <class T>
std::vector<T> RmsNorm<T>::backward(std::span<const T> d_out) {
  // With u = g * dy: dx = inv * u - x * inv^3 / dim * sum(u * x).
  const std::size_t rows = inv_rms_.size();
  if (d_out.size() != rows * dim_) throw std::invalid_argument("RmsNorm::backward: size mismatch");
  std::vector<T> dx(d_out.size());
  for (std::size_t r = 0; r < rows; ++r) {
    const T* xr = x_.data() + r * dim_;
    const T* dyr = d_out.data() + r * dim_;
    const T inv = inv_rms_[r];
    T dot = 0;
    for (std::size_t j = 0; j < dim_; ++j) {
      dot += gain_.value[j] * dyr[j] * xr[j];
      gain_.grad[j] += dyr[j] * xr[j] * inv;
    }
    const T coef = dot * inv * inv * inv / static_cast<T>(dim_);
    T* dxr = dx.data() + r * dim_;
    for (std::size_t j = 0; j < dim_; ++j) dxr[j] = inv * gain_.value[j] * dyr[j] - xr[j] * coef;
  }
  return dx;
}

template class RmsNorm<float>;
template class RmsNorm<double>;

}  // namespace frugal_demo
