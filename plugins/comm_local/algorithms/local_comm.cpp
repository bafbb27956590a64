#include "algorithms/local_comm.hpp"

#include <cstring>
#include <string>

#include "frugal/sdk/tensor_view.hpp"

namespace frugal::comm_local {
namespace {

// Copies `count` elements; the core has checked the parts, and source and
// destination are either the same memory or apart.
void copy(void* to, const void* from, size_t count, size_t element_bytes) {
  if (count == 0 || to == from) return;
  std::memcpy(to, from, count * element_bytes);
}

}  // namespace

// No options: a misspelt one must not pass silently (the core refuses it
// before create; a host calling the vtable directly gets the same).
LocalComm::LocalComm(const sdk::Options& options) { options.check_known({}); }

frugal_comm_info LocalComm::info() const {
  frugal_comm_info out{};
  out.struct_size = sizeof(out);
  out.rank = 0;
  out.size = 1;
  out.device_type = FRUGAL_DEVICE_CPU;
  return out;
}

std::unique_ptr<LocalComm> LocalComm::split(int32_t color, int32_t /*key*/, int64_t /*timeout_ms*/) {
  if (color == FRUGAL_COMM_COLOR_NONE) return nullptr;
  return std::make_unique<LocalComm>();
}

void LocalComm::run(const frugal_comm_call& call) {
  const size_t bytes = sdk::dtype_size(call.dtype);
  char* recv = static_cast<char*>(call.recv);
  const char* send = static_cast<const char*>(call.send);
  switch (call.op) {
    case FRUGAL_COMM_ALL_REDUCE:  // a reduction over one rank is the identity
    case FRUGAL_COMM_ALL_GATHER:
    case FRUGAL_COMM_REDUCE_SCATTER:
    case FRUGAL_COMM_ALL_TO_ALL: copy(recv, send, call.count, bytes); return;
    case FRUGAL_COMM_ALL_GATHER_V: copy(recv + call.recv_displs[0] * bytes, send, call.count, bytes); return;
    case FRUGAL_COMM_ALL_TO_ALL_V:
      if (call.send_counts[0] != call.recv_counts[0])
        throw sdk::PluginError(FRUGAL_ERR_INVALID_ARGUMENT,
                               "all_to_all_v on rank 0 of 1: sends " + std::to_string(call.send_counts[0]) +
                                   " elements to itself but expects " + std::to_string(call.recv_counts[0]));
      copy(recv + call.recv_displs[0] * bytes, send + call.send_displs[0] * bytes, call.send_counts[0], bytes);
      return;
    case FRUGAL_COMM_BROADCAST:  // rank 0 is the root and the only receiver
    case FRUGAL_COMM_BARRIER: return;
    default:
      throw sdk::PluginError(FRUGAL_ERR_UNIMPLEMENTED, "op " + std::to_string(call.op) + " is not known to comm_local");
  }
}

}  // namespace frugal::comm_local
