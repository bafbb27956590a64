// max/mean and coefficient of variation of the load over a layer's experts.
#include "expert_balance.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace frugal_demo {

ExpertBalance expert_balance(const std::vector<ExpertLoadRecord>& loads) {
  ExpertBalance out;
  if (loads.empty()) return out;
  std::int64_t last = loads.front().step;
  for (const auto& r : loads) last = std::max(last, r.step);
  out.step = last;
  // A layer's experts by index: a row logged twice keeps its last value.
  std::map<int, std::map<int, double>> by_layer;
  for (const auto& r : loads)
    if (r.step == last) by_layer[r.layer][r.expert] = r.load;
  for (const auto& [layer, experts] : by_layer) {
    const double n = static_cast<double>(experts.size());
    double sum = 0.0, max = 0.0;
    for (const auto& [e, load] : experts) {
      sum += load;
      max = std::max(max, load);
    }
    const double mean = sum / n;
    double var = 0.0;
    for (const auto& [e, load] : experts) var += (load - mean) * (load - mean);
    LayerBalance b;
    b.layer = layer;
    b.experts = static_cast<int>(experts.size());
    // No load at all: nothing routed, nothing unbalanced.
    b.max_over_mean = mean > 0.0 ? max / mean : 0.0;
    b.cv = mean > 0.0 ? std::sqrt(var / n) / mean : 0.0;
    out.layers.push_back(b);
  }
  return out;
}

}  // namespace frugal_demo
