#include "cross_entropy.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace frugal_demo {

template <class T>
T CrossEntropy<T>::forward(std::span<const T> logits, std::span<const std::int32_t> labels, std::size_t classes) {
  if (logits.size() != labels.size() * classes) throw std::invalid_argument("CrossEntropy: size mismatch");
  classes_ = classes;
  labels_.assign(labels.begin(), labels.end());
  probs_.resize(logits.size());
  counted_ = 0;
  T total = 0;
  for (std::size_t r = 0; r < labels.size(); ++r) {
    const T* lr = logits.data() + r * classes;
    T* pr = probs_.data() + r * classes;
    // Subtracting the row max keeps exp() from overflowing.
    const T mx = *std::max_element(lr, lr + classes);
    T sum = 0;
    for (std::size_t c = 0; c < classes; ++c) {
      pr[c] = std::exp(lr[c] - mx);
      sum += pr[c];
    }
    for (std::size_t c = 0; c < classes; ++c) pr[c] /= sum;
    const std::int32_t label = labels[r];
    if (label == kIgnoreLabel) continue;
    if (label < 0 || static_cast<std::size_t>(label) >= classes)
      throw std::out_of_range("CrossEntropy: label " + std::to_string(label) + " outside the classes");
    total += mx + std::log(sum) - lr[label];
    ++counted_;
  }
  return counted_ == 0 ? T(0) : total / static_cast<T>(counted_);
}

template <class T>
std::vector<T> CrossEntropy<T>::backward(T scale) {
  std::vector<T> d(probs_.size(), T(0));
  if (counted_ == 0) return d;
  const T w = scale / static_cast<T>(counted_);
  for (std::size_t r = 0; r < labels_.size(); ++r) {
    const std::int32_t label = labels_[r];
    if (label == kIgnoreLabel) continue;
    T* dr = d.data() + r * classes_;
    const T* pr = probs_.data() + r * classes_;
    for (std::size_t c = 0; c < classes_; ++c) dr[c] = w * pr[c];
    dr[label] -= w;
  }
  return d;
}

template class CrossEntropy<float>;
template class CrossEntropy<double>;

}  // namespace frugal_demo
