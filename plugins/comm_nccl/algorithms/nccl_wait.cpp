#include "algorithms/nccl_wait.hpp"

#include <algorithm>
#include <cstring>
#include <thread>

#include "cuda_support/cuda_support.hpp"
#include "frugal/sdk/plugin_support.hpp"

namespace frugal::comm_nccl {
namespace {

// Yields for the first polls (a small collective finishes in microseconds),
// then sleeps, longer as the wait goes on, up to a millisecond: a wait of
// minutes costs little CPU, a short one little latency.
class Backoff {
 public:
  void pause() {
    ++polls_;
    if (polls_ < 200) {
      std::this_thread::yield();
    } else {
      const auto us = std::min<int64_t>(1000, 10 + (polls_ - 200) / 4);
      std::this_thread::sleep_for(std::chrono::microseconds(us));
    }
  }

 private:
  int64_t polls_ = 0;
};

// What most likely kept an operation from finishing, for the deadline's message.
const char* likely_cause(const CallScope& s) {
  if (std::strcmp(s.op, "create") == 0)
    return "a rank did not join: every rank of the group must create the comm, with the same id and size";
  if (std::strcmp(s.op, "split") == 0) return "a rank did not call split: every rank of the group must";
  return "a peer died, stalled, or did not make the same call";
}

[[noreturn]] void deadline_exceeded(const CallScope& s, const char* function) {
  throw sdk::PluginError(FRUGAL_ERR_DEADLINE_EXCEEDED, where(s) + ": " + function + " did not finish within " +
                                                           std::to_string(s.timeout_ms) + " ms (" + likely_cause(s) +
                                                           ")");
}

}  // namespace

CallScope scope(const char* op, int rank, int size, int64_t timeout_ms) {
  return {op, rank, size, timeout_ms, std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms)};
}

std::string where(const CallScope& s) {
  if (s.size <= 0) return s.op;  // rank and size not known yet (wrapping a communicator)
  return std::string(s.op) + " on rank " + std::to_string(s.rank) + " of " + std::to_string(s.size);
}

void check_nccl(ncclResult_t result, const CallScope& s, const char* function, Phase phase) {
  if (result == ncclSuccess || result == ncclInProgress) return;
  std::string message =
      where(s) + ": " + function + ": " + nccl_result_name(result) + ": " + ncclGetErrorString(result);
  const char* last = ncclGetLastError(nullptr);
  if (last != nullptr && last[0] != '\0') message += std::string(" (") + last + ")";
  throw sdk::PluginError(error_code(result, phase), message);
}

void wait_ready(ncclComm_t comm, const CallScope& s, const char* function, Phase phase) {
  Backoff backoff;
  for (;;) {
    ncclResult_t state = ncclInProgress;
    check_nccl(ncclCommGetAsyncError(comm, &state), s, "ncclCommGetAsyncError", phase);
    if (state == ncclSuccess) return;
    check_nccl(state, s, function, phase);
    if (std::chrono::steady_clock::now() >= s.deadline) deadline_exceeded(s, function);
    backoff.pause();
  }
}

void wait_done(ncclComm_t comm, cudaEvent_t done, const CallScope& s, const char* function) {
  Backoff backoff;
  for (;;) {
    const cudaError_t status = cudaEventQuery(done);
    if (status == cudaSuccess) return;
    if (status != cudaErrorNotReady)
      throw sdk::PluginError(FRUGAL_ERR_DEVICE, where(s) + ": " + function + ": " +
                                                    plugin_cuda::cuda_error_text(status, "cudaEventQuery"));
    ncclResult_t state = ncclSuccess;
    check_nccl(ncclCommGetAsyncError(comm, &state), s, "ncclCommGetAsyncError", Phase::collective);
    check_nccl(state, s, function, Phase::collective);
    if (std::chrono::steady_clock::now() >= s.deadline) deadline_exceeded(s, function);
    backoff.pause();
  }
}

}  // namespace frugal::comm_nccl
