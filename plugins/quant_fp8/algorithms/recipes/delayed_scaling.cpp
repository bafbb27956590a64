#include "recipes/delayed_scaling.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "recipes/scale_from_amax.hpp"

namespace frugal::quant::recipes {

void validate_config(const DelayedScalingConfig& config) {
  if (config.history < 1 || config.history > kMaxHistory) {
    throw std::invalid_argument("DelayedScaling: history must be in [1, " + std::to_string(kMaxHistory) + "], got " +
                                std::to_string(config.history));
  }
  if (config.reduction != AmaxReduction::max && config.reduction != AmaxReduction::most_recent) {
    throw std::invalid_argument("DelayedScaling: reduction must be max or most_recent");
  }
  if (config.margin < kMinMargin || config.margin > kMaxMargin) {
    throw std::invalid_argument("DelayedScaling: margin must be in [" + std::to_string(kMinMargin) + ", " +
                                std::to_string(kMaxMargin) + "], got " + std::to_string(config.margin));
  }
  check_fp8_max(config.fp8_max, "DelayedScaling");
}

DelayedScaling::DelayedScaling(const DelayedScalingConfig& config) : config_(config) {
  validate_config(config_);
  ring_.assign(config_.history, 0.0f);
}

std::vector<float> DelayedScaling::history() const {
  std::vector<float> out(ring_.size());
  for (std::size_t i = 0; i < ring_.size(); ++i) out[i] = ring_[(pos_ + ring_.size() - i) % ring_.size()];
  return out;
}

float DelayedScaling::reduce() const noexcept {
  if (config_.reduction == AmaxReduction::most_recent) return ring_[pos_];
  // The ring holds only finite values >= 0 (update() sees to it).
  return *std::max_element(ring_.begin(), ring_.end());
}

bool DelayedScaling::update(float amax) {
  if (amax < 0.0f)
    throw std::invalid_argument("DelayedScaling::update: amax must be >= 0, got " + std::to_string(amax));
  const bool finite = std::isfinite(amax);
  pos_ = (pos_ + 1) % ring_.size();
  ring_[pos_] = finite ? std::fabs(amax) : 0.0f;  // fabs: store -0.0 as +0.0
  ++steps_;
  if (!finite) {
    ++nonfinite_steps_;
    return false;
  }
  const auto s = scale_for_target(reduce(), std::ldexp(double{config_.fp8_max}, -config_.margin));
  if (!s) return false;  // reduced amax is 0
  scale_ = s->scale;
  scale_inv_ = s->scale_inv;
  return true;
}

}  // namespace frugal::quant::recipes
