// The group a quantizer agrees on its amax with (option amax_comm): one
// all-reduce (max) of one fp32 per call, through the host table's comm
// slots (ABI 2.1), so the plugin never links MPI or NCCL.
#pragma once

#include <cstdint>

#include "frugal/comm_vtable.h"
#include "frugal/sdk/plugin_support.hpp"

namespace frugal::quant::plugin {

class AmaxGroup {
 public:
  // Reads the comm's rank and size. Throws INVALID_ARGUMENT for a comm
  // whose buffers live on a device (the amax is reduced in host memory).
  AmaxGroup(const frugal_host_api* host, frugal_comm* comm);

  // The max of `amax` over the group's ranks, each rank passing its own.
  // NaN is sent as +Inf, so a NaN on any rank gives +Inf on every rank
  // (the MAX of a NaN is unspecified; the recipes treat NaN and Inf alike:
  // no scale from it). A failed or timed-out collective throws the comm's
  // own error, unchanged (its code, DEADLINE_EXCEEDED or IO, and its
  // message naming the comm, the rank and the peer), after logging an
  // ERROR line that names option 'amax_comm' and `consequence`: the host
  // table has no slot to read an error's text, so it cannot be prefixed.
  [[nodiscard]] float max(float amax, const char* consequence) const;

  [[nodiscard]] std::int32_t rank() const noexcept { return rank_; }
  [[nodiscard]] std::int32_t size() const noexcept { return size_; }

 private:
  const frugal_host_api* host_;
  frugal_comm* comm_;
  std::int32_t rank_ = 0;
  std::int32_t size_ = 1;
};

}  // namespace frugal::quant::plugin
