#include "algorithms/p2p_parts.hpp"

namespace frugal::comm_nccl {

bool is_p2p_op(int32_t op) {
  return op == FRUGAL_COMM_ALL_TO_ALL || op == FRUGAL_COMM_ALL_TO_ALL_V || op == FRUGAL_COMM_ALL_GATHER_V;
}

std::vector<P2pPart> p2p_parts(const frugal_comm_call& call, int size, std::size_t element_bytes) {
  std::vector<P2pPart> parts(static_cast<std::size_t>(size));
  const std::size_t e = element_bytes;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    P2pPart& part = parts[p];
    part.peer = static_cast<int>(p);
    switch (call.op) {
      case FRUGAL_COMM_ALL_TO_ALL:
        part.send_offset = part.recv_offset = p * call.count * e;
        part.send_bytes = part.recv_bytes = call.count * e;
        break;
      case FRUGAL_COMM_ALL_TO_ALL_V:
        part.send_offset = call.send_displs[p] * e;
        part.send_bytes = call.send_counts[p] * e;
        part.recv_offset = call.recv_displs[p] * e;
        part.recv_bytes = call.recv_counts[p] * e;
        break;
      case FRUGAL_COMM_ALL_GATHER_V:
        part.send_offset = 0;
        part.send_bytes = call.count * e;
        part.recv_offset = call.recv_displs[p] * e;
        part.recv_bytes = call.recv_counts[p] * e;
        break;
      default: return {};
    }
  }
  return parts;
}

}  // namespace frugal::comm_nccl
