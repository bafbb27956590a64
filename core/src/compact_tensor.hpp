// Tensors read as one flat array of elements: the checkpoint engine's
// registered tensors and the communicator's buffers cross as compact
// row-major memory, never as strided views. Internal to libfrugal.
#pragma once

#include <cstddef>
#include <cstdint>

#include "frugal/tensor.h"

namespace frugal {

// True when `view`'s strides are NULL or those of compact row-major
// memory (extent-1 dimensions may carry any stride). `view` must have
// passed frugal_tensor_validate.
bool is_row_major(const frugal_tensor& view);

// A tensor as a flat array: data with byte_offset folded in, the element
// count, dtype, element size, device.
struct CompactBuffer {
  void* data = nullptr;
  size_t count = 0;
  int32_t dtype = 0;
  size_t element_bytes = 0;
  frugal_device device{};
};

// Checks `tensor` (role names it in errors: "send") and returns it flat:
// not NULL, valid, compact row-major, not quantized (no quant slot, or
// FRUGAL_SCALING_NONE), data not NULL when it has elements. Zero elements
// are allowed.
CompactBuffer to_compact(const frugal_tensor* tensor, const char* role);

}  // namespace frugal
