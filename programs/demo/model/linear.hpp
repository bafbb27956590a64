// y = x W^T (+ b), W stored [out, in] (the usual layout, and the one a
// per-output-channel quantizer expects).
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>
#include <vector>

#include "fake_quant.hpp"
#include "parameters.hpp"

namespace frugal_demo {

template <class T>
class Linear {
 public:
  // bias: an empty view means no bias.
  Linear(std::size_t in, std::size_t out, ParamView<T> weight, ParamView<T> bias);

  std::vector<T> forward(std::span<const T> x);  // x: [n, in] -> [n, out]
  // Accumulates dW (and db); returns dx. With fake-quant, gradients are
  // computed with the quantized tensors the forward used, and dW lands on
  // the fp32 master weight unchanged (straight-through estimator).
  std::vector<T> backward(std::span<const T> d_out);

  // Hooks are not owned; nullptr turns a hook off.
  void set_fake_quant(FakeQuant* weight, FakeQuant* input) requires std::is_same_v<T, float> {
    weight_quant_ = weight;
    input_quant_ = input;
  }

 private:
  std::size_t in_;
  std::size_t out_;
  ParamView<T> weight_;
  ParamView<T> bias_;
  FakeQuant* weight_quant_ = nullptr;
  FakeQuant* input_quant_ = nullptr;
  std::vector<T> x_;        // the (possibly quantized) input, for dW
  std::vector<T> w_quant_;  // the quantized weight, when hooked
  bool weight_quantized_ = false;
};

}  // namespace frugal_demo
