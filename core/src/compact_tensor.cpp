#include "compact_tensor.hpp"

#include <fmt/format.h>

#include "dtype.hpp"
#include "error.hpp"
#include "frugal/managed_tensor.h"
#include "sized_structs.hpp"

namespace frugal {

bool is_row_major(const frugal_tensor& view) {
  if (view.strides == nullptr) return true;
  int64_t expected = 1;
  for (int32_t i = view.ndim; i-- > 0;) {
    if (view.shape[i] != 1 && view.strides[i] != expected) return false;
    expected *= view.shape[i];
  }
  return true;
}

CompactBuffer to_compact(const frugal_tensor* tensor, const char* role) {
  if (tensor == nullptr) fail(FRUGAL_ERR_INVALID_ARGUMENT, "{} is NULL", role);
  rethrow_if_error(frugal_tensor_validate(tensor), fmt::format("{}: ", role));
  const frugal_tensor t = read_sized(tensor);
  if (!is_row_major(t))
    fail(FRUGAL_ERR_UNSUPPORTED, "{}: not compact row-major; pass a contiguous tensor (or a compact copy)", role);
  if (t.quant != nullptr && t.struct_size > offsetof(frugal_tensor, quant)) {
    const frugal_quant_meta meta = read_sized(t.quant);
    if (meta.scaling_mode != FRUGAL_SCALING_NONE)
      fail(FRUGAL_ERR_UNSUPPORTED, "{}: a quantized tensor; move its data and its scales as separate plain tensors",
           role);
  }
  CompactBuffer out;
  out.count = 1;
  for (int32_t i = 0; i < t.ndim; ++i) out.count *= static_cast<size_t>(t.shape[i]);  // validated: no overflow
  out.dtype = t.dtype;
  out.element_bytes = find_dtype(t.dtype)->bits / 8u;
  out.device = t.device;
  out.data = t.data != nullptr ? static_cast<char*>(t.data) + t.byte_offset : nullptr;
  if (out.data == nullptr && out.count > 0) fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: data is NULL", role);
  return out;
}

}  // namespace frugal
