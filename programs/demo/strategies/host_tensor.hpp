// A frugal_tensor view of a compact host array: what every call into a
// router or quantizer plugin takes. The shape array must outlive the view.
#pragma once

#include <cstdint>
#include <span>

#include "frugal/frugal.h"

namespace frugal_demo {

inline frugal_tensor host_tensor(const void* data, std::int32_t dtype, std::span<const std::int64_t> shape) {
  frugal_tensor t{};
  t.struct_size = sizeof(t);
  // The C view is not const-qualified; read-only inputs are never written.
  t.data = const_cast<void*>(data);
  t.dtype = dtype;
  t.ndim = static_cast<std::int32_t>(shape.size());
  t.device.type = FRUGAL_DEVICE_CPU;
  t.shape = shape.data();
  return t;
}

}  // namespace frugal_demo
