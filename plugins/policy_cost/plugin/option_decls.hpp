// The options each policy_cost strategy declares, kept apart
// from the descriptor; they must say exactly what config.cpp accepts.
#pragma once

#include "frugal/plugin.h"

namespace frugal::policy::plugin {

extern const frugal_strategy_options_ext kCadenceOptions;
extern const frugal_strategy_options_ext kSpotPhaseOptions;
extern const frugal_strategy_options_ext kAutoscalerOptions;
extern const frugal_strategy_options_ext kEarlyStopOptions;

}  // namespace frugal::policy::plugin
