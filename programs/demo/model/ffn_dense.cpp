#include "ffn_dense.hpp"

namespace frugal_demo {

template <class T>
FfnDense<T>::FfnDense(std::size_t d_model, std::size_t hidden, const FfnParams<T>& params)
    : up_(d_model, hidden, params.up_weight, params.up_bias),
      down_(hidden, d_model, params.down_weight, params.down_bias) {}

template <class T>
std::vector<T> FfnDense<T>::forward(std::span<const T> x) {
  return down_.forward(act_.forward(up_.forward(x)));
}

template <class T>
std::vector<T> FfnDense<T>::backward(std::span<const T> d_out) {
  return up_.backward(act_.backward(down_.backward(d_out)));
}

template class FfnDense<float>;
template class FfnDense<double>;

}  // namespace frugal_demo
