// GELU, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
#pragma once

#include <span>
#include <vector>

namespace frugal_demo {

template <class T>
class Gelu {
 public:
  std::vector<T> forward(std::span<const T> x);
  std::vector<T> backward(std::span<const T> d_out);

 private:
  std::vector<T> x_;
  std::vector<T> tanh_;  // kept from forward: tanh is most of this op's cost
};

}  // namespace frugal_demo
