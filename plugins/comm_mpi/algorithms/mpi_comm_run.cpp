// The collectives of an `mpi` communicator: each one MPI_I* call (or, past
// MPI's int counts, several), waited on under the call's deadline; large
// all-reduces as a ring of point-to-point calls (ring_all_reduce.hpp).
#include <algorithm>
#include <array>
#include <climits>
#include <string>
#include <vector>

#include "algorithms/mpi_comm.hpp"
#include "algorithms/mpi_runtime.hpp"
#include "algorithms/mpi_types.hpp"
#include "algorithms/mpi_wait.hpp"
#include "algorithms/ring_all_reduce.hpp"
#include "frugal/sdk/comm_ops.hpp"
#include "frugal/sdk/tensor_view.hpp"

namespace frugal::comm_mpi {
namespace {

// MPI counts and displacements are int.
int as_count(size_t n, const CallScope& s, const char* what) {
  if (n > static_cast<size_t>(INT_MAX))
    throw sdk::PluginError(FRUGAL_ERR_UNSUPPORTED, where(s) + ": " + what + " of " + std::to_string(n) +
                                                       " elements is more than MPI's int counts can hold (" +
                                                       std::to_string(INT_MAX) + ")");
  return static_cast<int>(n);
}

std::vector<int> as_counts(const size_t* values, int size, const CallScope& s, const char* what) {
  std::vector<int> out(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r) out[static_cast<size_t>(r)] = as_count(values[r], s, what);
  return out;
}

// A call's identity, compared across ranks by check_calls.
std::array<int64_t, 6> signature(const frugal_comm_call& c, int size) {
  uint64_t counts_hash = 1469598103934665603ull;  // FNV-1a over recv_counts: all_gather_v's must agree everywhere
  if (c.op == FRUGAL_COMM_ALL_GATHER_V)
    for (int r = 0; r < size; ++r) counts_hash = (counts_hash ^ c.recv_counts[r]) * 1099511628211ull;
  // The "v" ops' own counts differ by rank by design: -1, "per rank".
  const bool per_rank = c.op == FRUGAL_COMM_ALL_GATHER_V || c.op == FRUGAL_COMM_ALL_TO_ALL_V;
  return {c.op,
          c.dtype,
          c.reduce_op,
          c.root,
          per_rank ? -1 : static_cast<int64_t>(c.count),
          static_cast<int64_t>(counts_hash)};
}

std::string describe(const std::array<int64_t, 6>& sig, const char* op_name) {
  std::string out = std::string(op_name) + " (";
  out += sig[0] == FRUGAL_COMM_BARRIER
             ? std::string("no buffers")
             : std::string(sdk::dtype_name(static_cast<int32_t>(sig[1]))) + ", " +
                   (sig[4] < 0 ? std::string("counts per rank") : std::to_string(sig[4]) + " elements");
  if (sig[2] != 0)
    out += std::string(", ") + (sig[2] == FRUGAL_REDUCE_SUM ? "sum" : sig[2] == FRUGAL_REDUCE_MAX ? "max" : "min");
  if (sig[0] == FRUGAL_COMM_BROADCAST) out += ", root " + std::to_string(sig[3]);
  return out + ")";
}

}  // namespace

template <typename Start>
void MpiComm::run_request(const CallScope& s, const char* function, Start&& start) {
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(start(&request), s, function);
  wait_all(std::span(&request, 1), s);
}

void MpiComm::check_same_call(const frugal_comm_call& call, const CallScope& s) {
  const auto mine = signature(call, size_);
  std::vector<int64_t> all(mine.size() * static_cast<size_t>(size_));
  run_request(s, "MPI_Iallgather", [&](MPI_Request* r) {
    return MPI_Iallgather(mine.data(), static_cast<int>(mine.size()), MPI_INT64_T, all.data(),
                          static_cast<int>(mine.size()), MPI_INT64_T, comm_, r);
  });
  for (int peer = 0; peer < size_; ++peer) {
    std::array<int64_t, 6> theirs{};
    std::copy_n(all.begin() + static_cast<ptrdiff_t>(peer * mine.size()), mine.size(), theirs.begin());
    if (theirs == mine) continue;
    const bool counts_only = theirs[0] == mine[0] && std::equal(mine.begin(), mine.begin() + 5, theirs.begin());
    throw sdk::PluginError(
        FRUGAL_ERR_INVALID_ARGUMENT,
        where(s) + ": rank " + std::to_string(peer) + " called " + describe(theirs, sdk::comm_op_name(theirs[0])) +
            " where this rank called " + describe(mine, sdk::comm_op_name(mine[0])) +
            (counts_only ? " with other recv_counts" : "") + "; every rank must make the same call (nothing was sent)");
  }
  if (call.op != FRUGAL_COMM_ALL_TO_ALL_V) return;
  // What each peer sends this rank must be what this rank expects; every
  // rank learns of the first bad pair, so all fail together.
  std::vector<uint64_t> sent_to_me(static_cast<size_t>(size_));
  run_request(s, "MPI_Ialltoall", [&](MPI_Request* r) {
    return MPI_Ialltoall(call.send_counts, 1, MPI_UINT64_T, sent_to_me.data(), 1, MPI_UINT64_T, comm_, r);
  });
  int64_t bad = -1;  // sender * size + receiver
  for (int peer = 0; peer < size_ && bad < 0; ++peer)
    if (sent_to_me[static_cast<size_t>(peer)] != call.recv_counts[peer]) bad = int64_t{peer} * size_ + rank_;
  int64_t first_bad = -1;
  run_request(s, "MPI_Iallreduce",
              [&](MPI_Request* r) { return MPI_Iallreduce(&bad, &first_bad, 1, MPI_INT64_T, MPI_MAX, comm_, r); });
  if (first_bad >= 0)
    throw sdk::PluginError(FRUGAL_ERR_INVALID_ARGUMENT,
                           where(s) + ": rank " + std::to_string(first_bad / size_) + " sends rank " +
                               std::to_string(first_bad % size_) +
                               " another number of elements than that rank expects from it (send_counts and "
                               "recv_counts disagree; nothing was sent)");
}

void MpiComm::run(const frugal_comm_call& call) {
  if (broken_)
    throw sdk::PluginError(FRUGAL_ERR_FAILED_PRECONDITION,
                           std::string(sdk::comm_op_name(call.op)) + ": the comm is broken by an earlier failure");
  guarded([&] {
    const CallScope s = scope(sdk::comm_op_name(call.op), rank_, size_, call.timeout_ms, &peers_);
    if (check_calls_) check_same_call(call, s);
    const MPI_Datatype type = call.op == FRUGAL_COMM_BARRIER ? MPI_BYTE : datatype_of(call.dtype);
    const size_t bytes = call.op == FRUGAL_COMM_BARRIER ? 0 : sdk::dtype_size(call.dtype);
    switch (call.op) {
      case FRUGAL_COMM_ALL_REDUCE: {
        const MPI_Op op = op_of(call.dtype, call.reduce_op);
        if (size_ > 1 && call.count * bytes >= static_cast<uint64_t>(ring_.min_bytes) && ring_fits(call.count, size_)) {
          ring_all_reduce(call.send, call.recv, call.count, bytes, type, op, comm_, rank_, size_,
                          static_cast<size_t>(ring_.segment_bytes), s, scratch_);
          return;
        }
        // Past INT_MAX elements in pieces, all in flight under one deadline.
        const bool in_place = call.send == call.recv;
        std::vector<MPI_Request> requests;
        for (size_t at = 0; at < call.count || (at == 0 && call.count == 0); at += static_cast<size_t>(INT_MAX)) {
          const int n = static_cast<int>(std::min<size_t>(call.count - at, INT_MAX));
          char* recv = static_cast<char*>(call.recv) + at * bytes;
          const void* send = in_place ? MPI_IN_PLACE : static_cast<const char*>(call.send) + at * bytes;
          requests.push_back(MPI_REQUEST_NULL);
          check_mpi(MPI_Iallreduce(send, recv, n, type, op, comm_, &requests.back()), s, "MPI_Iallreduce");
          if (call.count == 0) break;
        }
        wait_all(requests, s);
        return;
      }
      case FRUGAL_COMM_BROADCAST: {
        std::vector<MPI_Request> requests;
        for (size_t at = 0; at < call.count || (at == 0 && call.count == 0); at += static_cast<size_t>(INT_MAX)) {
          const int n = static_cast<int>(std::min<size_t>(call.count - at, INT_MAX));
          requests.push_back(MPI_REQUEST_NULL);
          check_mpi(MPI_Ibcast(static_cast<char*>(call.recv) + at * bytes, n, type, call.root, comm_, &requests.back()),
                    s, "MPI_Ibcast");
          if (call.count == 0) break;
        }
        wait_all(requests, s);
        return;
      }
      case FRUGAL_COMM_ALL_GATHER: {
        const int n = as_count(call.count, s, "a block");
        as_count(call.count * static_cast<size_t>(size_), s, "the gathered buffer");
        run_request(s, "MPI_Iallgather",
                    [&](MPI_Request* r) { return MPI_Iallgather(call.send, n, type, call.recv, n, type, comm_, r); });
        return;
      }
      case FRUGAL_COMM_ALL_GATHER_V: {
        const auto counts = as_counts(call.recv_counts, size_, s, "a part");
        const auto displs = as_counts(call.recv_displs, size_, s, "a displacement");
        run_request(s, "MPI_Iallgatherv", [&](MPI_Request* r) {
          return MPI_Iallgatherv(call.send, as_count(call.count, s, "send"), type, call.recv, counts.data(),
                                 displs.data(), type, comm_, r);
        });
        return;
      }
      case FRUGAL_COMM_REDUCE_SCATTER: {
        const int n = as_count(call.count, s, "a block");
        const MPI_Op op = op_of(call.dtype, call.reduce_op);
        run_request(s, "MPI_Ireduce_scatter_block", [&](MPI_Request* r) {
          return MPI_Ireduce_scatter_block(call.send, call.recv, n, type, op, comm_, r);
        });
        return;
      }
      case FRUGAL_COMM_ALL_TO_ALL: {
        const int n = as_count(call.count, s, "a block");
        run_request(s, "MPI_Ialltoall",
                    [&](MPI_Request* r) { return MPI_Ialltoall(call.send, n, type, call.recv, n, type, comm_, r); });
        return;
      }
      case FRUGAL_COMM_ALL_TO_ALL_V: {
        const auto send_counts = as_counts(call.send_counts, size_, s, "a part");
        const auto send_displs = as_counts(call.send_displs, size_, s, "a displacement");
        const auto recv_counts = as_counts(call.recv_counts, size_, s, "a part");
        const auto recv_displs = as_counts(call.recv_displs, size_, s, "a displacement");
        run_request(s, "MPI_Ialltoallv", [&](MPI_Request* r) {
          return MPI_Ialltoallv(call.send, send_counts.data(), send_displs.data(), type, call.recv, recv_counts.data(),
                                recv_displs.data(), type, comm_, r);
        });
        return;
      }
      case FRUGAL_COMM_BARRIER:
        run_request(s, "MPI_Ibarrier", [&](MPI_Request* r) { return MPI_Ibarrier(comm_, r); });
        return;
      default:
        throw sdk::PluginError(FRUGAL_ERR_UNIMPLEMENTED, "op " + std::to_string(call.op) + " is not known to comm_mpi");
    }
  });
}

}  // namespace frugal::comm_mpi
