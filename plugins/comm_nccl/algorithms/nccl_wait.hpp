// Waiting on NCCL under a deadline instead of blocking: every communicator
// this plugin makes is non-blocking (ncclConfig_t.blocking = 0), so init,
// split, a group end or a collective's enqueue may return ncclInProgress
// and finish in NCCL's own threads; ncclCommGetAsyncError says when. The
// collective itself runs on a CUDA stream: an event recorded behind it is
// polled with cudaEventQuery. Past the deadline the caller aborts the
// communicator (ncclCommAbort makes NCCL's kernels and threads give up) and
// the group is broken.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "algorithms/nccl_types.hpp"

namespace frugal::comm_nccl {

// One operation's identity and deadline, for waiting and for errors.
struct CallScope {
  const char* op;  // "all_reduce", ..., "create", "split"
  int rank;
  int size;
  int64_t timeout_ms;
  std::chrono::steady_clock::time_point deadline;
};

CallScope scope(const char* op, int rank, int size, int64_t timeout_ms);

// "all_reduce on rank 2 of 4"; the op alone while size is 0 (not known yet).
std::string where(const CallScope& s);

// Throws sdk::PluginError unless `result` is ncclSuccess or ncclInProgress:
// error_code(result, phase), "<where>: <function>: <result name>: <NCCL's
// text> (<ncclGetLastError>)".
void check_nccl(ncclResult_t result, const CallScope& s, const char* function, Phase phase);

// Polls `comm` until it leaves ncclInProgress. Throws check_nccl's error
// for a failure, DEADLINE_EXCEEDED naming the function, the rank and the
// deadline when it is still in progress at the deadline.
void wait_ready(ncclComm_t comm, const CallScope& s, const char* function, Phase phase);

// Polls `done` (an event recorded behind the collective on its stream)
// until it completes, and `comm`'s asynchronous error meanwhile. Throws
// DEVICE for a CUDA error, check_nccl's error for an NCCL failure (a dead
// peer is ncclRemoteError: IO), DEADLINE_EXCEEDED past the deadline.
void wait_done(ncclComm_t comm, cudaEvent_t done, const CallScope& s, const char* function);

}  // namespace frugal::comm_nccl
