// The expert-parallel group of a router (its `ep_comm` option) as the
// algorithms' GroupComm: each collective is one frugal_comm_call through
// the host table's comm_run, under the comm's own deadline, so a dead or
// late rank is an error here rather than a hang.
#pragma once

#include <cstdint>

#include "algorithms/group_route.hpp"
#include "frugal/comm_vtable.h"
#include "frugal/sdk/plugin_support.hpp"

namespace frugal::router::plugin {

class HostGroupComm final : public GroupComm {
 public:
  // `comm` stays valid until the router is destroyed (option_get_comm's promise).
  HostGroupComm(const frugal_host_api* host, frugal_comm* comm);

  [[nodiscard]] int64_t rank() const override { return rank_; }
  [[nodiscard]] int64_t ranks() const override { return ranks_; }
  std::vector<int64_t> all_gather(std::span<const int64_t> mine) override;
  std::vector<int64_t> all_gather_v(std::span<const int64_t> mine, std::span<const std::size_t> counts) override;
  void all_to_all_v(Payload payload, const void* send, std::span<const std::size_t> send_counts,
                    std::span<const std::size_t> send_displs, void* recv, std::span<const std::size_t> recv_counts,
                    std::span<const std::size_t> recv_displs) override;

  // The device the comm's buffers live on (frugal_device_type_values).
  [[nodiscard]] int32_t device_type() const noexcept { return device_type_; }

 private:
  void run(frugal_comm_call& call) const;

  const frugal_host_api* host_;
  frugal_comm* comm_;
  int64_t rank_ = 0;
  int64_t ranks_ = 1;
  int32_t device_type_ = 0;
};

}  // namespace frugal::router::plugin
