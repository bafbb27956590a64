// A compact 2-D host tensor over owned storage, for the router benches'
// calls through the C API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "frugal/frugal.h"

namespace frugal::bench {

struct HostBuffer {
  std::vector<unsigned char> bytes;
  int64_t shape[2]{};
  frugal_tensor view{};

  HostBuffer(int32_t dtype, int64_t rows, int64_t cols, std::size_t element)
      : bytes(static_cast<std::size_t>(rows * cols) * element) {
    shape[0] = rows;
    shape[1] = cols;
    view.struct_size = sizeof(view);
    view.data = bytes.data();
    view.dtype = dtype;
    view.ndim = 2;
    view.device = {FRUGAL_DEVICE_CPU, 0};
    view.shape = shape;
  }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
};

}  // namespace frugal::bench
