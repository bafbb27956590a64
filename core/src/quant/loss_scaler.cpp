#include "quant/loss_scaler.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

namespace frugal::quant {
namespace {

void require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("LossScaler: ") + what);
}

// Round-trip text of a double, NaN and infinities included, for messages.
std::string number_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
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
    // Saturates: a restored count may already be at the maximum.
    if (state_.skipped_steps < std::numeric_limits<int64_t>::max()) ++state_.skipped_steps;
    return false;
  }
  if (++state_.clean_steps >= config_.growth_interval) {
    state_.scale = std::min(state_.scale * config_.growth_factor, config_.max_scale);
    state_.clean_steps = 0;
  }
  return true;
}

void LossScaler::restore(const LossScalerState& state) {
  // Every field is checked before any is taken (all or nothing); NaN fails
  // the scale's check.
  require(state.scale >= config_.min_scale && state.scale <= config_.max_scale,
          ("restored scale " + number_text(state.scale) + " must be in [" + number_text(config_.min_scale) + ", " +
           number_text(config_.max_scale) + "] (min_scale, max_scale)")
              .c_str());
  require(state.clean_steps >= 0 && state.clean_steps < config_.growth_interval,
          ("restored clean_steps " + std::to_string(state.clean_steps) + " must be in [0, " +
           std::to_string(config_.growth_interval) + ") (growth_interval)")
              .c_str());
  require(state.skipped_steps >= 0,
          ("restored skipped_steps " + std::to_string(state.skipped_steps) + " must be >= 0").c_str());
  state_ = state;
}

}  // namespace frugal::quant
