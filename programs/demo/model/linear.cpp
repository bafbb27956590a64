#include "linear.hpp"

#include <stdexcept>

#include "tensor_math.hpp"

namespace frugal_demo {

template <class T>
Linear<T>::Linear(std::size_t in, std::size_t out, ParamView<T> weight, ParamView<T> bias)
    : in_(in), out_(out), weight_(weight), bias_(bias) {
  if (weight.value.size() != in * out) throw std::invalid_argument("Linear: weight size mismatch");
  if (!bias.value.empty() && bias.value.size() != out) throw std::invalid_argument("Linear: bias size mismatch");
}

template <class T>
std::vector<T> Linear<T>::forward(std::span<const T> x) {
  if (x.size() % in_ != 0) throw std::invalid_argument("Linear::forward: input not a multiple of in_features");
  const std::size_t n = x.size() / in_;
  x_.assign(x.begin(), x.end());
  const T* w = weight_.value.data();
  weight_quantized_ = false;
  if constexpr (std::is_same_v<T, float>) {
    if (input_quant_ != nullptr) input_quant_->apply(x, x_, n, in_, QuantRole::activation);
    if (weight_quant_ != nullptr) {
      w_quant_.resize(weight_.value.size());
      weight_quant_->apply(weight_.value, w_quant_, out_, in_, QuantRole::weight);
      w = w_quant_.data();
      weight_quantized_ = true;
    }
  }
  std::vector<T> y(n * out_);
  gemm_nt(x_.data(), w, y.data(), n, in_, out_, false);
  if (!bias_.value.empty())
    for (std::size_t r = 0; r < n; ++r)
      for (std::size_t j = 0; j < out_; ++j) y[r * out_ + j] += bias_.value[j];
  return y;
}

template <class T>
std::vector<T> Linear<T>::backward(std::span<const T> d_out) {
  const std::size_t n = x_.size() / in_;
  if (d_out.size() != n * out_) throw std::invalid_argument("Linear::backward: size mismatch");
  const T* w = weight_quantized_ ? w_quant_.data() : weight_.value.data();
  std::vector<T> dx(n * in_);
  gemm_nn(d_out.data(), w, dx.data(), n, out_, in_, false);
  gemm_tn_acc(d_out.data(), x_.data(), weight_.grad.data(), out_, n, in_);
  if (!bias_.grad.empty())
    for (std::size_t r = 0; r < n; ++r)
      for (std::size_t j = 0; j < out_; ++j) bias_.grad[j] += d_out[r * out_ + j];
  return dx;
}

template class Linear<float>;
template class Linear<double>;

}  // namespace frugal_demo
