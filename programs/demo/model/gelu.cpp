#include "gelu.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace frugal_demo {
namespace {

template <class T>
constexpr T kSqrt2OverPi = static_cast<T>(0.79788456080286535587989211986876);  // sqrt(2/pi)
template <class T>
constexpr T kCubic = static_cast<T>(0.044715);

}  // namespace

template <class T>
std::vector<T> Gelu<T>::forward(std::span<const T> x) {
  x_.assign(x.begin(), x.end());
  tanh_.resize(x.size());
  std::vector<T> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const T v = x[i];
    const T t = std::tanh(kSqrt2OverPi<T> * (v + kCubic<T> * v * v * v));
    tanh_[i] = t;
    y[i] = T(0.5) * v * (T(1) + t);
  }
  return y;
}

template <class T>
std::vector<T> Gelu<T>::backward(std::span<const T> d_out) {
  if (d_out.size() != x_.size()) throw std::invalid_argument("Gelu::backward: size mismatch");
  std::vector<T> dx(x_.size());
  for (std::size_t i = 0; i < x_.size(); ++i) {
    const T v = x_[i];
    const T t = tanh_[i];
    const T du = kSqrt2OverPi<T> * (T(1) + T(3) * kCubic<T> * v * v);
    dx[i] = d_out[i] * (T(0.5) * (T(1) + t) + T(0.5) * v * (T(1) - t * t) * du);
  }
  return dx;
}

template class Gelu<float>;
template class Gelu<double>;

}  // namespace frugal_demo
