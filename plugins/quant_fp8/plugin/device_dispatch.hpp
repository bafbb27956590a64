// Runs an operation on the device its tensors live on: the CPU ops or the
// CUDA ones, with the CUDA path's failures turned into frugal errors
// (UnsupportedDevice -> FRUGAL_ERR_UNSUPPORTED, CudaFailure ->
// FRUGAL_ERR_DEVICE), each message naming the device.
#pragma once

#include <string>

#include "cuda/cuda_ops.hpp"
#include "frugal/sdk/plugin_support.hpp"
#include "frugal/tensor.h"

namespace frugal::quant::plugin {

// "CPU", "CUDA:1", "device type 7".
[[nodiscard]] std::string device_name(const frugal_device& device);

// on_cpu() or on_cuda() by device.type; anything else is UNSUPPORTED.
template <class Cpu, class Cuda>
decltype(auto) on_device(const frugal_device& device, const char* what, Cpu on_cpu, Cuda on_cuda) {
  using sdk::PluginError;
  if (device.type == FRUGAL_DEVICE_CPU) return on_cpu();
  if (device.type != FRUGAL_DEVICE_CUDA) {
    throw PluginError(FRUGAL_ERR_UNSUPPORTED,
                      std::string(what) + ": tensors on " + device_name(device) + " (quant_fp8 runs on CPU and CUDA)");
  }
  try {
    return on_cuda();
  } catch (const cuda::UnsupportedDevice& e) {
    throw PluginError(FRUGAL_ERR_UNSUPPORTED, "tensors on " + device_name(device) + ": " + e.what());
  } catch (const cuda::CudaFailure& e) {
    throw PluginError(FRUGAL_ERR_DEVICE, "tensors on " + device_name(device) + ": " + e.what());
  }
}

}  // namespace frugal::quant::plugin
