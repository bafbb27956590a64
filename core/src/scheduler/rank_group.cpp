#include "scheduler/rank_group.hpp"

#include <fmt/format.h>

#include "error.hpp"
#include "frugal/comm.h"

namespace frugal::scheduling {

RankGroup::RankGroup(frugal_comm* host) {
  if (frugal_comm_device_type(host) != FRUGAL_DEVICE_CPU)
    fail(FRUGAL_ERR_INVALID_ARGUMENT,
         "config.comm must take host memory (an mpi or local comm); the scheduler exchanges its telemetry in host "
         "buffers");
  frugal_comm* sub = nullptr;
  rethrow_if_error(frugal_comm_split(host, 0, frugal_comm_rank(host), &sub),
                   "scheduler: splitting its sub-group of config.comm: ");
  comm_ = sub;
  rank_ = frugal_comm_rank(comm_);
  size_ = frugal_comm_size(comm_);
}

RankGroup::~RankGroup() { frugal_comm_destroy(comm_); }

std::vector<uint64_t> RankGroup::all_gather(std::span<const uint64_t> mine, const std::string& what) {
  std::vector<uint64_t> all(mine.size() * static_cast<size_t>(size_));
  int64_t send_extent = static_cast<int64_t>(mine.size());
  int64_t recv_extent = static_cast<int64_t>(all.size());
  frugal_tensor send{};
  send.struct_size = sizeof(send);
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-const-cast): a send buffer is only read
  send.data = const_cast<uint64_t*>(mine.data());
  send.dtype = FRUGAL_DTYPE_INT64;
  send.ndim = 1;
  send.shape = &send_extent;
  send.device = {FRUGAL_DEVICE_CPU, 0};
  frugal_tensor recv = send;
  recv.data = all.data();
  recv.shape = &recv_extent;
  rethrow_if_error(frugal_comm_all_gather(comm_, &send, &recv),
                   fmt::format("scheduler across {} ranks, rank {}: {}: ", size_, rank_, what));
  return all;
}

}  // namespace frugal::scheduling
