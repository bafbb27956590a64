// Softmax cross-entropy, mean over the labels that are not ignored.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace frugal_demo {

inline constexpr std::int32_t kIgnoreLabel = -100;

template <class T>
class CrossEntropy {
 public:
  // logits [n, classes]; labels [n] in [0, classes) or kIgnoreLabel.
  // Returns the mean loss over counted labels (0 when none counts).
  T forward(std::span<const T> logits, std::span<const std::int32_t> labels, std::size_t classes);
  // d(loss * scale)/d logits.
  std::vector<T> backward(T scale = T(1));

  [[nodiscard]] std::size_t counted() const { return counted_; }

 private:
  std::size_t classes_ = 0;
  std::size_t counted_ = 0;
  std::vector<T> probs_;
  std::vector<std::int32_t> labels_;
};

}  // namespace frugal_demo
