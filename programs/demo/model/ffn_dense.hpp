// Dense feed-forward: Linear -> GELU -> Linear. Also the expert of the MoE.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "gelu.hpp"
#include "linear.hpp"

namespace frugal_demo {

template <class T>
struct FfnParams {
  ParamView<T> up_weight;    // [hidden, d_model]
  ParamView<T> up_bias;      // [hidden]
  ParamView<T> down_weight;  // [d_model, hidden]
  ParamView<T> down_bias;    // [d_model]
};

template <class T>
class FfnDense {
 public:
  FfnDense(std::size_t d_model, std::size_t hidden, const FfnParams<T>& params);

  std::vector<T> forward(std::span<const T> x);
  std::vector<T> backward(std::span<const T> d_out);

  Linear<T>& up() { return up_; }
  Linear<T>& down() { return down_; }

 private:
  Linear<T> up_;
  Gelu<T> act_;
  Linear<T> down_;
};

}  // namespace frugal_demo
