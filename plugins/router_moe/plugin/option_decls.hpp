// The options each router_moe strategy declares, kept apart
// from the descriptor; they must say exactly what config.cpp accepts.
#pragma once

#include "frugal/plugin.h"

namespace frugal::router::plugin {

extern const frugal_strategy_options_ext kTopkSoftmaxOptions;
extern const frugal_strategy_options_ext kDeepSeekV3Options;
extern const frugal_strategy_options_ext kExpertChoiceOptions;

}  // namespace frugal::router::plugin
