// The options of the `nccl` comm.
#pragma once

#include "frugal/plugin.h"

namespace frugal::comm_nccl {

extern const frugal_strategy_options_ext kNcclOptions;

}  // namespace frugal::comm_nccl
