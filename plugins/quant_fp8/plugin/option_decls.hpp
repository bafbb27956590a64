// The options the quant_fp8 strategy declares, kept apart from
// the descriptor; they must say exactly what config.cpp accepts.
#pragma once

#include "frugal/plugin.h"

namespace frugal::quant::plugin {

extern const frugal_strategy_options_ext kQuantFp8Options;

}  // namespace frugal::quant::plugin
