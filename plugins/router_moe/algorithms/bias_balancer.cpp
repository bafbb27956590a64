#include "algorithms/bias_balancer.hpp"

#include <cmath>

#include "algorithms/types.hpp"

namespace frugal::router {

BiasBalancer::BiasBalancer(int64_t experts, float gamma) : gamma_(gamma) {
  if (experts < 1 || experts > kMaxExperts) {
    throw RouterError("bias balancer: experts " + std::to_string(experts) + " not in [1, " +
                      std::to_string(kMaxExperts) + "]");
  }
  if (!(gamma >= 0.0f) || std::isinf(gamma)) throw RouterError("bias balancer: gamma must be finite and >= 0");
  bias_.assign(static_cast<std::size_t>(experts), 0.0f);
}

void BiasBalancer::update(std::span<const int64_t> load) {
  if (load.size() != bias_.size()) {
    throw RouterError("bias balancer: " + std::to_string(load.size()) + " loads for " + std::to_string(bias_.size()) +
                      " experts");
  }
  int64_t total = 0;
  for (const int64_t l : load) {
    if (l < 0) throw RouterError("bias balancer: negative load");
    total += l;
  }
  const auto E = static_cast<int64_t>(load.size());
  for (std::size_t i = 0; i < load.size(); ++i) {
    const int64_t diff = total - E * load[i];  // sign(mean - load_i) without rounding
    if (diff > 0) bias_[i] += gamma_;
    if (diff < 0) bias_[i] -= gamma_;
  }
  ++steps_;
}

}  // namespace frugal::router
