#include "plugin/device_dispatch.hpp"

namespace frugal::quant::plugin {

std::string device_name(const frugal_device& device) {
  switch (device.type) {
    case FRUGAL_DEVICE_CPU: return "CPU";
    case FRUGAL_DEVICE_CUDA: return "CUDA:" + std::to_string(device.id);
    case FRUGAL_DEVICE_CUDA_PINNED: return "CUDA pinned host memory";
    default: return "device type " + std::to_string(device.type);
  }
}

}  // namespace frugal::quant::plugin
