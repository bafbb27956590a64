// RMSNorm: y = x / sqrt(mean(x^2) + eps) * gain, per row.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "parameters.hpp"

namespace frugal_demo {

template <class T>
class RmsNorm {
 public:
  RmsNorm(std::size_t dim, ParamView<T> gain, double eps = 1e-5);

  std::vector<T> forward(std::span<const T> x);  // x: [n, dim]
  std::vector<T> backward(std::span<const T> d_out);

 private:
  std::size_t dim_;
  ParamView<T> gain_;
  T eps_;
  std::vector<T> x_;
  std::vector<T> inv_rms_;  // per row, kept for backward
};

}  // namespace frugal_demo
