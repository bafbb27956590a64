// The collectives of an `nccl` communicator: each one NCCL call (or one
// group of sends and receives), enqueued on the call's stream and waited on
// under the call's deadline.
#include <string>

#include "algorithms/nccl_comm.hpp"
#include "algorithms/nccl_comm_guard.hpp"
#include "algorithms/p2p_parts.hpp"
#include "frugal/sdk/comm_ops.hpp"
#include "frugal/sdk/tensor_view.hpp"

namespace frugal::comm_nccl {

void NcclComm::run(const frugal_comm_call& call) {
  const CallScope s = scope(sdk::comm_op_name(call.op), rank_, size_, call.timeout_ms);
  if (!broken_.empty())
    throw sdk::PluginError(FRUGAL_ERR_FAILED_PRECONDITION,
                           where(s) + ": the comm is broken by an earlier failure (" + broken_ + ")");
  last_timeout_ms_ = call.timeout_ms;
  guarded(s, [&] {
    const plugin_cuda::DeviceGuard on(device_);
    const auto stream = call.stream != nullptr ? static_cast<cudaStream_t>(call.stream) : resources_->stream();
    const char* function = enqueue(call, stream, s);
    if (function == nullptr) return;  // nothing to move
    plugin_cuda::check(cudaEventRecord(resources_->done(), stream), "cudaEventRecord");
    wait_done(comm_, resources_->done(), s, function);
  });
}

void NcclComm::settle(ncclResult_t result, const CallScope& s, const char* function) {
  check_nccl(result, s, function, Phase::collective);
  // Non-blocking: the call may still be on its way to the stream; the event
  // must be recorded behind it, so wait until NCCL has taken it.
  wait_ready(comm_, s, function, Phase::collective);
}

const char* NcclComm::enqueue(const frugal_comm_call& c, cudaStream_t stream, const CallScope& s) {
  const size_t bytes = c.count * sdk::dtype_size(c.dtype);
  switch (c.op) {
    case FRUGAL_COMM_ALL_REDUCE:
    case FRUGAL_COMM_REDUCE_SCATTER: {
      if (c.count == 0) return nullptr;  // the same on every rank: nothing to agree on
      const auto type = reduce_type(c.dtype);
      const auto op = reduce_op(c.reduce_op);
      if (!type || !op)  // the core refuses these before a backend sees them
        throw sdk::PluginError(FRUGAL_ERR_UNSUPPORTED, where(s) + ": " + sdk::dtype_name(c.dtype) + " with reduce_op " +
                                                           std::to_string(c.reduce_op) + " has no NCCL reduction");
      if (c.op == FRUGAL_COMM_ALL_REDUCE) {
        settle(ncclAllReduce(c.send, c.recv, c.count, *type, *op, comm_, stream), s, "ncclAllReduce");
        return "ncclAllReduce";
      }
      settle(ncclReduceScatter(c.send, c.recv, c.count, *type, *op, comm_, stream), s, "ncclReduceScatter");
      return "ncclReduceScatter";
    }
    case FRUGAL_COMM_BROADCAST:
      if (bytes == 0) return nullptr;
      // In place (send is NULL): the root's recv is the source.
      settle(ncclBroadcast(c.recv, c.recv, bytes, ncclUint8, c.root, comm_, stream), s, "ncclBroadcast");
      return "ncclBroadcast";
    case FRUGAL_COMM_ALL_GATHER:
      if (bytes == 0) return nullptr;
      settle(ncclAllGather(c.send, c.recv, bytes, ncclUint8, comm_, stream), s, "ncclAllGather");
      return "ncclAllGather";
    case FRUGAL_COMM_ALL_TO_ALL:
    case FRUGAL_COMM_ALL_TO_ALL_V:
    case FRUGAL_COMM_ALL_GATHER_V: return enqueue_p2p(c, stream, s);
    case FRUGAL_COMM_BARRIER: {
      int32_t* word = resources_->barrier_word();
      settle(ncclAllReduce(word, word, 1, ncclInt32, ncclSum, comm_, stream), s, "ncclAllReduce (barrier)");
      return "ncclAllReduce (barrier)";
    }
    default:
      throw sdk::PluginError(FRUGAL_ERR_UNIMPLEMENTED, "op " + std::to_string(c.op) + " is not known to comm_nccl");
  }
}

const char* NcclComm::enqueue_p2p(const frugal_comm_call& c, cudaStream_t stream, const CallScope& s) {
  const auto parts = p2p_parts(c, size_, sdk::dtype_size(c.dtype));
  bool moves = false;
  for (const P2pPart& p : parts) moves = moves || p.send_bytes != 0 || p.recv_bytes != 0;
  // What one rank sends another equals what that rank expects (the call's
  // contract), so a rank with nothing to move has no partner waiting on it.
  if (!moves) return nullptr;
  const auto* send = static_cast<const char*>(c.send);
  auto* recv = static_cast<char*>(c.recv);
  check_nccl(ncclGroupStart(), s, "ncclGroupStart", Phase::collective);
  ncclResult_t first = ncclSuccess;
  const char* failed = "";
  auto keep = [&](ncclResult_t r, const char* function) {
    if (first == ncclSuccess && r != ncclSuccess && r != ncclInProgress) {
      first = r;
      failed = function;
    }
  };
  for (const P2pPart& p : parts) {
    if (p.send_bytes != 0)
      keep(ncclSend(send + p.send_offset, p.send_bytes, ncclUint8, p.peer, comm_, stream), "ncclSend");
    if (p.recv_bytes != 0)
      keep(ncclRecv(recv + p.recv_offset, p.recv_bytes, ncclUint8, p.peer, comm_, stream), "ncclRecv");
  }
  // Always closed, so this thread never stays inside a group.
  const ncclResult_t ended = ncclGroupEnd();
  check_nccl(first, s, failed, Phase::collective);
  settle(ended, s, "ncclGroupEnd (sends and receives)");
  return "ncclSend/ncclRecv";
}

}  // namespace frugal::comm_nccl
