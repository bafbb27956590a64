// How an `nccl` communicator turns failures into frugal errors (shared by
// nccl_comm.cpp and nccl_comm_run.cpp): CUDA failures of the shared
// helpers (plugins/cuda_support) become FRUGAL_ERR_DEVICE with the call's
// rank, and a failure that leaves the ranks disagreeing on what ran aborts
// an owned communicator and breaks the instance.
#pragma once

#include <string>
#include <utility>

#include "algorithms/nccl_comm.hpp"
#include "cuda_support/device_errors.hpp"

namespace frugal::comm_nccl {

// Runs body; CudaFailure -> DEVICE, UnsupportedDevice -> UNSUPPORTED, each
// prefixed with where(s).
template <typename Body>
void translate_device_errors(const CallScope& s, Body&& body) {
  try {
    std::forward<Body>(body)();
  } catch (const plugin_cuda::CudaFailure& e) {
    throw sdk::PluginError(FRUGAL_ERR_DEVICE, where(s) + ": " + e.what());
  } catch (const plugin_cuda::UnsupportedDevice& e) {
    throw sdk::PluginError(FRUGAL_ERR_UNSUPPORTED, where(s) + ": " + e.what());
  }
}

// The failures after which the ranks no longer agree on what has run (the
// core breaks its Communicator on the same codes).
inline bool breaks_group(int32_t code) {
  return code == FRUGAL_ERR_DEADLINE_EXCEEDED || code == FRUGAL_ERR_IO || code == FRUGAL_ERR_CANCELLED ||
         code == FRUGAL_ERR_DEVICE || code == FRUGAL_ERR_INTERNAL;
}

template <typename Body>
void NcclComm::guarded(const CallScope& s, Body&& body) {
  try {
    translate_device_errors(s, std::forward<Body>(body));
  } catch (const sdk::PluginError& e) {
    if (!breaks_group(e.code())) throw;
    std::string message = e.what();
    if (owned_ && comm_ != nullptr) {
      // Makes NCCL's kernels and threads give up, so nothing is left
      // spinning on the stream; the handle is freed.
      static_cast<void>(ncclCommAbort(comm_));
      comm_ = nullptr;
      message += "; the NCCL communicator is aborted";
    } else if (!owned_) {
      message += "; the communicator given as 'nccl_comm' is left to its owner, who must ncclCommAbort it";
    }
    broken_ = message;
    throw sdk::PluginError(e.code(), message);
  }
}

}  // namespace frugal::comm_nccl
