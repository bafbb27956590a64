// The options each schedule_lr strategy declares, kept apart
// from the descriptor; they must say exactly what algorithms/lr_schedules.cpp accepts.
#pragma once

#include "frugal/plugin.h"

namespace frugal::schedule_lr {

extern const frugal_strategy_options_ext kConstantOptions;
extern const frugal_strategy_options_ext kLinearWarmupOptions;
extern const frugal_strategy_options_ext kCosineOptions;
extern const frugal_strategy_options_ext kSgdrOptions;
extern const frugal_strategy_options_ext kWsdOptions;

}  // namespace frugal::schedule_lr
