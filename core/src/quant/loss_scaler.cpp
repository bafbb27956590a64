#include "quant/loss_scaler.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace frugal::quant {
namespace {

void require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("LossScaler: ") + what);
}

}  // namespace

LossScaler::LossScaler(const LossScalerConfig& config) : config_(config) {
  // Written so that NaN fails every check.
  require(config.growth_factor > 1.0 && std::isfinite(config.growth_factor), "growth_factor must be finite and > 1");
  require(config.backoff_factor > 0.0 && config.backoff_factor < 1.0, "backoff_factor must be in (0, 1)");
  require(config.growth_interval >= 1, "growth_interval must be >= 1");
  require(config.min_scale > 0.0, "min_scale must be > 0");
  require(config.max_scale >= config.min_scale && std::isfinite(config.max_scale),
          "max_scale must be finite and >= min_scale");
  require(config.init_scale >= config.min_scale && config.init_scale <= config.max_scale,
          "init_scale must be in [min_scale, max_scale]");
  state_.scale = config.init_scale;
}

bool LossScaler::update(bool found_inf) noexcept {
  if (found_inf) {
    state_.scale = std::max(state_.scale * config_.backoff_factor, config_.min_scale);
    state_.clean_steps = 0;
    ++state_.skipped_steps;
    return false;
  }
  if (++state_.clean_steps >= config_.growth_interval) {
    state_.scale = std::min(state_.scale * config_.growth_factor, config_.max_scale);
    state_.clean_steps = 0;
  }
  return true;
}

void LossScaler::restore(const LossScalerState& state) {
  require(state.scale >= config_.min_scale && state.scale <= config_.max_scale,
          "restored scale must be in [min_scale, max_scale]");
  require(state.clean_steps >= 0 && state.clean_steps < config_.growth_interval,
          "restored clean_steps must be in [0, growth_interval)");
  require(state.skipped_steps >= 0, "restored skipped_steps must be >= 0");
  state_ = state;
}

}  // namespace frugal::quant
