// Checking one collective (frugal_comm_call) against its group before a
// backend sees it, for the host API (which knows its tensors' extents)
// and for plugins calling through the host table (which pass raw
// pointers). Internal to libfrugal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "frugal/comm_vtable.h"

namespace frugal::comm {

// Elements a buffer holds; kUnknown for a plugin's raw pointer.
inline constexpr size_t kUnknown = std::numeric_limits<size_t>::max();

struct Extents {
  size_t send = kUnknown;
  size_t recv = kUnknown;
};

// Checks `call` against `info` and `extents`, and completes it: NULL
// displacements of the "v" ops become packed ones (kept in `displs`,
// which must outlive the call). Throws frugal::Error (INVALID_ARGUMENT,
// OUT_OF_RANGE, UNSUPPORTED) prefixed with the op's name.
void check_call(frugal_comm_call& call, const frugal_comm_info& info, const Extents& extents,
                std::vector<size_t>& displs);

}  // namespace frugal::comm
