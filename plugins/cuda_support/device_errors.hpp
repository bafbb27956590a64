// The two failures of a plugin's device path, shared by every plugin with
// CUDA kernels (quant_fp8, router_moe). Plain C++ (no CUDA types), so the
// plugin glue that turns them into frugal errors compiles without nvcc and
// in a build without CUDA, where the stubs throw UnsupportedDevice.
#pragma once

#include <stdexcept>
#include <string>

namespace frugal::plugin_cuda {

// A device path that is not available: no CUDA in this build, memory that
// is not on a CUDA device, or a combination without a kernel (the message
// names it). The glue reports FRUGAL_ERR_UNSUPPORTED.
class UnsupportedDevice : public std::runtime_error {
 public:
  explicit UnsupportedDevice(const std::string& what) : std::runtime_error(what) {}
};

// A CUDA runtime or library failure: "<call>: <error name>: <error string>"
// (cuda_error_text). The glue reports FRUGAL_ERR_DEVICE.
class CudaFailure : public std::runtime_error {
 public:
  explicit CudaFailure(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace frugal::plugin_cuda
