#include "plugin/group_comm.hpp"

namespace frugal::router::plugin {
namespace {

int32_t dtype_of(Payload p) {
  switch (p) {
    case Payload::i64: return FRUGAL_DTYPE_INT64;
    case Payload::f32: return FRUGAL_DTYPE_FLOAT32;
    case Payload::bf16: return FRUGAL_DTYPE_BFLOAT16;
  }
  return FRUGAL_DTYPE_UINT8;
}

}  // namespace

HostGroupComm::HostGroupComm(const frugal_host_api* host, frugal_comm* comm) : host_(host), comm_(comm) {
  frugal_comm_info info{};
  info.struct_size = sizeof(info);
  sdk::check(host_, host_->comm_info(comm_, &info));
  rank_ = info.rank;
  ranks_ = info.size;
  device_type_ = info.device_type;
}

void HostGroupComm::run(frugal_comm_call& call) const {
  call.struct_size = sizeof(call);
  call.timeout_ms = 0;  // the comm's deadline
  // The core's error names the operation, the rank and the peer.
  sdk::check(host_, host_->comm_run(comm_, &call));
}

std::vector<int64_t> HostGroupComm::all_gather(std::span<const int64_t> mine) {
  std::vector<int64_t> all(mine.size() * static_cast<std::size_t>(ranks_));
  frugal_comm_call call{};
  call.op = FRUGAL_COMM_ALL_GATHER;
  call.dtype = FRUGAL_DTYPE_INT64;
  call.send = mine.data();
  call.recv = all.data();
  call.count = mine.size();
  run(call);
  return all;
}

std::vector<int64_t> HostGroupComm::all_gather_v(std::span<const int64_t> mine, std::span<const std::size_t> counts) {
  const std::vector<std::size_t> displs = displacements(counts);
  std::vector<int64_t> all(displs.back() + counts.back());
  frugal_comm_call call{};
  call.op = FRUGAL_COMM_ALL_GATHER_V;
  call.dtype = FRUGAL_DTYPE_INT64;
  call.send = mine.data();
  call.recv = all.data();
  call.count = mine.size();
  call.recv_counts = counts.data();
  call.recv_displs = displs.data();
  run(call);
  return all;
}

void HostGroupComm::all_to_all_v(Payload payload, const void* send, std::span<const std::size_t> send_counts,
                                 std::span<const std::size_t> send_displs, void* recv,
                                 std::span<const std::size_t> recv_counts, std::span<const std::size_t> recv_displs) {
  frugal_comm_call call{};
  call.op = FRUGAL_COMM_ALL_TO_ALL_V;
  call.dtype = dtype_of(payload);
  call.send = send;
  call.recv = recv;
  call.send_counts = send_counts.data();
  call.send_displs = send_displs.data();
  call.recv_counts = recv_counts.data();
  call.recv_displs = recv_displs.data();
  run(call);
}

}  // namespace frugal::router::plugin
