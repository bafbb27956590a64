#include "algorithms/topk.hpp"

#include <cstddef>

namespace frugal::router {

void top_k(std::span<const float> scores, std::span<int32_t> out) noexcept {
  const std::size_t k = out.size();
  if (k == 0) return;
  std::size_t have = 0;
  // out[0, have) holds the best so far, best first. Scanning indices upward
  // and moving past equal values keeps the lower index ahead on ties.
  for (std::size_t i = 0; i < scores.size(); ++i) {
    const float v = scores[i];
    if (have == k && !(v > scores[static_cast<std::size_t>(out[k - 1])])) continue;
    std::size_t pos = have < k ? have++ : k - 1;
    while (pos > 0 && v > scores[static_cast<std::size_t>(out[pos - 1])]) {
      out[pos] = out[pos - 1];
      --pos;
    }
    out[pos] = static_cast<int32_t>(i);
  }
}

}  // namespace frugal::router
