// The `local` comm: rank 0 of a group of one. Every collective is a copy
// from send to recv (or nothing, when they are the same memory).
#pragma once

#include <cstdint>
#include <memory>

#include "frugal/comm_vtable.h"
#include "frugal/sdk/plugin_support.hpp"

namespace frugal::comm_local {

class LocalComm {
 public:
  explicit LocalComm(const sdk::Options& options);
  LocalComm() = default;

  [[nodiscard]] frugal_comm_info info() const;
  std::unique_ptr<LocalComm> split(int32_t color, int32_t key, int64_t timeout_ms);
  void run(const frugal_comm_call& call);
};

}  // namespace frugal::comm_local
