// The `nccl` communicator: one rank's ncclComm_t on one CUDA device, made
// non-blocking (ncclConfig_t.blocking = 0) so that init, split and every
// collective are waited on under a deadline (nccl_wait.hpp) and a dead or
// stalled peer becomes an error on every rank still running, never a hang.
//
// Each collective is enqueued on the call's stream (frugal_comm_set_stream)
// or on the comm's own, then waited on until it has completed: a call
// returns with the result in recv. Past the deadline the communicator is
// aborted (ncclCommAbort) and the instance is broken: later calls fail at
// once. A communicator handed over as option "nccl_comm" is the host's: it
// is used, never finalized, destroyed or aborted.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "algorithms/nccl_options.hpp"
#include "algorithms/nccl_wait.hpp"
#include "cuda_support/cuda_support.hpp"
#include "frugal/comm_vtable.h"
#include "frugal/sdk/plugin_support.hpp"

namespace frugal::comm_nccl {

// What an instance owns on its device besides the communicator: its own
// stream (for calls given none; blocking, so it waits for the legacy
// default stream's work), the event polled behind each collective, and the
// int a barrier all-reduces.
class DeviceResources {
 public:
  explicit DeviceResources(int device);
  ~DeviceResources();
  DeviceResources(const DeviceResources&) = delete;
  DeviceResources& operator=(const DeviceResources&) = delete;

  [[nodiscard]] cudaStream_t stream() const noexcept { return stream_; }
  [[nodiscard]] cudaEvent_t done() const noexcept { return done_; }
  [[nodiscard]] int32_t* barrier_word() const noexcept { return word_; }

 private:
  void release() noexcept;

  int device_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t done_ = nullptr;
  std::unique_ptr<plugin_cuda::StreamScratch> scratch_;
  int32_t* word_ = nullptr;
};

class NcclComm {
 public:
  explicit NcclComm(const sdk::Options& options);
  ~NcclComm();
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;

  [[nodiscard]] frugal_comm_info info() const;
  std::unique_ptr<NcclComm> split(int32_t color, int32_t key, int64_t timeout_ms);
  void run(const frugal_comm_call& call);

 private:
  struct Adopt {};
  // A communicator ncclCommSplit made (ready); aborts it if it cannot be adopted.
  NcclComm(Adopt, ncclComm_t comm, int device, int64_t timeout_ms, const CallScope& s);

  // bootstrap: rank 0 makes the id, the bootstrap comm carries it; every
  // rank then says whether it can join, so a rank without a device is an
  // error on every rank at once rather than a deadline on the others.
  UniqueIdBytes exchange_id(const sdk::Options& given, const NcclOptions& o, const CallScope& s);
  // ncclCommInitRankConfig, non-blocking, waited on under s's deadline.
  void init(const UniqueIdBytes& id, int rank, int size, const CallScope& s);
  // nccl_comm: adopts the host's communicator without owning it.
  void wrap(const NcclOptions& o, const CallScope& s);

  // Enqueues the call on `stream` and waits until NCCL has taken it; the
  // NCCL function named in errors, or nullptr when the call moves nothing.
  const char* enqueue(const frugal_comm_call& call, cudaStream_t stream, const CallScope& s);
  const char* enqueue_p2p(const frugal_comm_call& call, cudaStream_t stream, const CallScope& s);
  // Checks an enqueuing call's result and waits for the non-blocking
  // communicator to leave ncclInProgress.
  void settle(ncclResult_t result, const CallScope& s, const char* function);

  // Runs body; a failure that leaves the ranks disagreeing on what ran
  // (deadline, IO, device, internal) aborts an owned communicator and
  // breaks the instance. CUDA failures become FRUGAL_ERR_DEVICE.
  template <typename Body>
  void guarded(const CallScope& s, Body&& body);

  ncclComm_t comm_ = nullptr;  // nullptr once aborted
  bool owned_ = true;
  int device_ = 0;
  int rank_ = 0;
  int size_ = 1;
  int64_t last_timeout_ms_ = FRUGAL_COMM_DEFAULT_TIMEOUT_MS;  // bounds destroy's wait for ncclCommFinalize
  std::unique_ptr<DeviceResources> resources_;
  std::string broken_;  // the first failure that broke the group; empty while usable
};

// The CUDA device a rank uses: `wanted`, or the current one. Throws
// FAILED_PRECONDITION when this process sees no CUDA device (naming what
// CUDA said), OUT_OF_RANGE when `wanted` is not one of its devices; both
// prefixed with where(s).
int pick_device(std::optional<int32_t> wanted, const CallScope& s);

}  // namespace frugal::comm_nccl
