// The collectives NCCL has no one call for, as point-to-point parts: each
// becomes one ncclGroupStart ... ncclGroupEnd holding, for every peer
// (this rank included), an ncclSend of the part that goes to it and an
// ncclRecv of the part that comes from it, in bytes (ncclUint8), so any
// dtype moves. Plain C++: the tests check the offsets without a GPU.
//
//   all_to_all    send block p to rank p, block p of recv from rank p
//                 (`count` elements each);
//   all_to_all_v  send_counts[p] elements at send_displs[p] to rank p,
//                 recv_counts[p] at recv_displs[p] from rank p;
//   all_gather_v  the whole send (`count` elements) to every rank,
//                 recv_counts[p] at recv_displs[p] from rank p.
//
// The core has checked the call (frugal/comm_vtable.h): the displacements
// are filled in, every part lies inside its buffer.
#pragma once

#include <cstddef>
#include <vector>

#include "frugal/comm_vtable.h"

namespace frugal::comm_nccl {

// One peer's share of a point-to-point collective, in bytes.
struct P2pPart {
  int peer = 0;
  std::size_t send_offset = 0;  // from call.send
  std::size_t send_bytes = 0;   // 0: nothing is sent to this peer (no ncclSend)
  std::size_t recv_offset = 0;  // from call.recv
  std::size_t recv_bytes = 0;   // 0: nothing comes from this peer (no ncclRecv)

  friend bool operator==(const P2pPart&, const P2pPart&) = default;
};

// True for the ops p2p_parts plans (ALL_TO_ALL, ALL_TO_ALL_V, ALL_GATHER_V).
bool is_p2p_op(int32_t op);

// The parts of `call` (one of is_p2p_op's ops) in a group of `size` ranks,
// peer 0 first; `element_bytes` is the size of call.dtype.
std::vector<P2pPart> p2p_parts(const frugal_comm_call& call, int size, std::size_t element_bytes);

}  // namespace frugal::comm_nccl
