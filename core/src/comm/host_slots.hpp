// The host-table slots through which a plugin reaches a comm it was handed
// as an option (frugal_host_api.comm_info and comm_run, ABI 2.1).
// Implemented in comm_api.cpp beside the host's own entry points.
#pragma once

#include "frugal/comm_vtable.h"

namespace frugal::comm {

frugal_error* host_comm_info(const frugal_comm* comm, frugal_comm_info* out) noexcept;
frugal_error* host_comm_run(frugal_comm* comm, const frugal_comm_call* call) noexcept;

}  // namespace frugal::comm
