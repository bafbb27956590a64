#include "matrix_view.hpp"

#include <fmt/format.h>

#include "error.hpp"
#include "frugal/managed_tensor.h"
#include "sized_structs.hpp"

namespace frugal {

std::string device_name(const frugal_device& device) {
  switch (device.type) {
    case FRUGAL_DEVICE_CPU: return "CPU";
    case FRUGAL_DEVICE_CUDA_PINNED: return "CUDA pinned host";
    case FRUGAL_DEVICE_CUDA: return fmt::format("CUDA:{}", device.id);
    default: return fmt::format("device type {}", device.type);
  }
}

namespace {

// Pinned host memory is host memory: the plugin sees CPU.
frugal_device host_or_device(frugal_device d) {
  return d.type == FRUGAL_DEVICE_CUDA_PINNED ? frugal_device{FRUGAL_DEVICE_CPU, 0} : d;
}

void point_view_at_own_arrays(Matrix2D& m) {
  m.view.ndim = 2;
  m.view.shape = m.shape;
  m.view.strides = m.strides;
  m.view.byte_offset = 0;
  m.view.quant = nullptr;
  m.view.ext = nullptr;
}

}  // namespace

void to_matrix(const frugal_tensor* tensor, const char* role, Matrix2D& out) {
  if (tensor == nullptr) fail(FRUGAL_ERR_INVALID_ARGUMENT, "{} is NULL", role);
  rethrow_if_error(frugal_tensor_validate(tensor), fmt::format("{}: ", role));
  const frugal_tensor t = read_sized(tensor);
  if (t.ndim < 1) fail(FRUGAL_ERR_UNSUPPORTED, "{}: a scalar (ndim 0); a matrix view needs ndim >= 1", role);
  const int32_t last = t.ndim - 1;
  int64_t numel = 1;
  for (int32_t i = 0; i < t.ndim; ++i) numel *= t.shape[i];  // no overflow: validated
  if (numel == 0) fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: has no elements", role);
  const auto stride = [&](int32_t i) {
    if (t.strides != nullptr) return t.strides[i];
    int64_t s = 1;
    for (int32_t j = t.ndim - 1; j > i; --j) s *= t.shape[j];
    return s;
  };
  if (t.shape[last] > 1 && stride(last) != 1)
    fail(FRUGAL_ERR_UNSUPPORTED, "{}: the last dimension has stride {}; it must be contiguous (stride 1)", role,
         stride(last));
  const int64_t cols = t.shape[last];
  // Leading dimensions collapse into rows when each steps over the next
  // exactly; extent-1 dimensions take no part (their stride is irrelevant).
  int64_t rows = 1;
  int64_t row_stride = cols;
  int32_t inner = -1;  // the innermost leading dimension with extent > 1 seen so far
  for (int32_t i = last - 1; i >= 0; --i) {
    if (t.shape[i] == 1) continue;
    if (inner < 0) {
      row_stride = stride(i);
    } else if (stride(i) != stride(inner) * t.shape[inner]) {
      fail(FRUGAL_ERR_UNSUPPORTED,
           "{}: dimensions {} and {} do not collapse into rows (stride {} != {} x {}); pass a 2-D view", role, i, inner,
           stride(i), stride(inner), t.shape[inner]);
    }
    rows *= t.shape[i];
    inner = i;
  }
  if (rows > 1 && row_stride < cols)
    fail(FRUGAL_ERR_UNSUPPORTED, "{}: rows overlap (row stride {} < {} columns)", role, row_stride, cols);
  out.view = t;
  out.view.struct_size = sizeof(frugal_tensor);
  out.view.data = t.data != nullptr ? static_cast<char*>(t.data) + t.byte_offset : nullptr;
  out.view.device = host_or_device(t.device);
  out.shape[0] = rows;
  out.shape[1] = cols;
  out.strides[0] = row_stride;
  out.strides[1] = 1;
  point_view_at_own_arrays(out);
  if (out.view.data == nullptr) fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: data is NULL", role);
}

void require_same_device(const Matrix2D& a, const char* role_a, const Matrix2D& b, const char* role_b) {
  const frugal_device da = a.view.device;
  const frugal_device db = b.view.device;
  if (da.type != db.type || da.id != db.id)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "{} is on {} but {} is on {}; every tensor of a call shares one device", role_b,
         device_name(db), role_a, device_name(da));
}

}  // namespace frugal
