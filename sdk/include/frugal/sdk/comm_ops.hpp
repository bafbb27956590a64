// frugal/sdk/comm_ops.hpp — the names of the comm kind's operations
// (frugal_comm_op_values, frugal/comm_vtable.h), as errors spell them, for
// the core and for backends alike.
#pragma once

#include <cstdint>

#include "frugal/comm_vtable.h"

namespace frugal::sdk {

// "all_reduce", "all_to_all_v", ...; "unknown op" for any other value.
constexpr const char* comm_op_name(int64_t op) {
  switch (op) {
    case FRUGAL_COMM_ALL_REDUCE: return "all_reduce";
    case FRUGAL_COMM_BROADCAST: return "broadcast";
    case FRUGAL_COMM_ALL_GATHER: return "all_gather";
    case FRUGAL_COMM_ALL_GATHER_V: return "all_gather_v";
    case FRUGAL_COMM_REDUCE_SCATTER: return "reduce_scatter";
    case FRUGAL_COMM_ALL_TO_ALL: return "all_to_all";
    case FRUGAL_COMM_ALL_TO_ALL_V: return "all_to_all_v";
    case FRUGAL_COMM_BARRIER: return "barrier";
    default: return "unknown op";
  }
}

}  // namespace frugal::sdk
