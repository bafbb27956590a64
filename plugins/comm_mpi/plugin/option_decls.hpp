// The options of the `mpi` comm.
#pragma once

#include "frugal/plugin.h"

namespace frugal::comm_mpi {

extern const frugal_strategy_options_ext kMpiOptions;

}  // namespace frugal::comm_mpi
