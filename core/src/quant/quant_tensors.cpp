#include "quant/quant_tensors.hpp"

#include <fmt/format.h>

#include "dtype.hpp"
#include "error.hpp"
#include "frugal/managed_tensor.h"
#include "sized_structs.hpp"

namespace frugal::quant {

const char* scaling_mode_name(int32_t mode) {
  switch (mode) {
    case FRUGAL_SCALING_NONE: return "none";
    case FRUGAL_SCALING_DELAYED: return "delayed";
    case FRUGAL_SCALING_CURRENT: return "current";
    case FRUGAL_SCALING_PER_CHANNEL: return "per_channel";
    case FRUGAL_SCALING_BLOCK: return "block";
    case FRUGAL_SCALING_MX: return "mx";
    default: return "unknown scaling mode";
  }
}

Grid scale_grid(const frugal_quant_layout& layout, int64_t rows, int64_t cols) {
  const int64_t br = layout.block_rows == 0 ? rows : layout.block_rows;
  const int64_t bc = layout.block_cols == 0 ? cols : layout.block_cols;
  return Grid{(rows + br - 1) / br, (cols + bc - 1) / bc};
}

namespace {

// A scale tensor: compact, `count` = grid elements, the expected dtype; a
// 2-D one must be exactly the grid.
void to_scale_matrix(const frugal_tensor* tensor, const std::string& role, int32_t dtype, Grid grid, Matrix2D& out) {
  to_matrix(tensor, role.c_str(), out);
  if (out.view.dtype != dtype)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: dtype {}, expected {}", role, frugal_dtype_name(out.view.dtype),
         frugal_dtype_name(dtype));
  const frugal_tensor t = read_sized(tensor);
  if (out.rows() > 1 && out.strides[0] != out.cols())
    fail(FRUGAL_ERR_UNSUPPORTED, "{}: scale tensors must be compact (row stride {} for {} columns)", role,
         out.strides[0], out.cols());
  if (out.rows() * out.cols() != grid.rows * grid.cols)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: holds {} elements; the scale grid is {} x {}", role, out.rows() * out.cols(),
         grid.rows, grid.cols);
  if (t.ndim == 2 && (t.shape[0] != grid.rows || t.shape[1] != grid.cols))
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: shape [{}, {}]; the scale grid is [{}, {}]", role, t.shape[0], t.shape[1],
         grid.rows, grid.cols);
  out.shape[0] = grid.rows;
  out.shape[1] = grid.cols;
  out.strides[0] = grid.cols;
}

}  // namespace

void to_plugin_meta(const frugal_quant_meta* meta, const char* role, const frugal_quant_layout& layout, int64_t rows,
                    int64_t cols, PluginMeta& out) {
  if (meta == nullptr)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: quant is NULL; quantized tensors carry their scales in tensor->quant", role);
  if (meta->struct_size < offsetof(frugal_quant_meta, amax) + sizeof(void*))
    fail(FRUGAL_ERR_ABI_MISMATCH, "{}: quant->struct_size is {}; at least {} bytes are required", role,
         meta->struct_size, offsetof(frugal_quant_meta, amax) + sizeof(void*));
  const frugal_quant_meta m = read_sized(meta);
  if (m.scaling_mode != layout.scaling_mode || m.block_rows != layout.block_rows || m.block_cols != layout.block_cols)
    fail(FRUGAL_ERR_INVALID_ARGUMENT,
         "{}: quant says {} scaling with {} x {} blocks; this quantizer makes {} scaling with {} x {} blocks "
         "(0 = the whole dimension)",
         role, scaling_mode_name(m.scaling_mode), m.block_rows, m.block_cols, scaling_mode_name(layout.scaling_mode),
         layout.block_rows, layout.block_cols);
  const Grid grid = scale_grid(layout, rows, cols);
  const std::string r(role);
  if (m.scale_inv == nullptr) fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: quant->scale_inv is NULL", role);
  to_scale_matrix(m.scale_inv, r + ".scale_inv", layout.scale_dtype, grid, out.scale_inv);
  out.meta = m;
  out.meta.struct_size = sizeof(frugal_quant_meta);
  out.meta.scale_inv = &out.scale_inv.view;
  out.meta.scale = nullptr;
  out.meta.amax = nullptr;
  out.meta.ext = nullptr;
  if (m.scale != nullptr) {
    if (layout.scale_dtype != FRUGAL_DTYPE_FLOAT32)
      fail(FRUGAL_ERR_UNSUPPORTED, "{}: quant->scale must be NULL for {} scaling (scale_inv alone holds the {} scales)",
           role, scaling_mode_name(layout.scaling_mode), frugal_dtype_name(layout.scale_dtype));
    to_scale_matrix(m.scale, r + ".scale", FRUGAL_DTYPE_FLOAT32, grid, out.scale);
    out.meta.scale = &out.scale.view;
  }
  if (m.amax != nullptr) {
    to_scale_matrix(m.amax, r + ".amax", FRUGAL_DTYPE_FLOAT32, Grid{1, 1}, out.amax);
    out.meta.amax = &out.amax.view;
  }
  const frugal_quant_zero_point_ext* zp = nullptr;
  for (const frugal_ext_header* e = m.ext; e != nullptr; e = e->next)
    if (e->type == FRUGAL_EXT_QUANT_ZERO_POINT && e->struct_size >= sizeof(frugal_quant_zero_point_ext))
      zp = reinterpret_cast<const frugal_quant_zero_point_ext*>(e);
  const bool wants_zp = (layout.flags & FRUGAL_QUANT_LAYOUT_ZERO_POINT) != 0;
  if (wants_zp && (zp == nullptr || zp->zero_point == nullptr))
    fail(FRUGAL_ERR_INVALID_ARGUMENT,
         "{}: asymmetric INT8 needs a zero point: chain a frugal_quant_zero_point_ext on quant->ext", role);
  if (wants_zp) {
    to_scale_matrix(zp->zero_point, r + ".zero_point", FRUGAL_DTYPE_INT8, grid, out.zero_point);
    out.zero_point_ext.header = {sizeof(frugal_quant_zero_point_ext), FRUGAL_EXT_QUANT_ZERO_POINT, 0, nullptr};
    out.zero_point_ext.zero_point = &out.zero_point.view;
    out.meta.ext = &out.zero_point_ext.header;
  }
}

void require_meta_on(const PluginMeta& meta, const char* role, const Matrix2D& device_of) {
  const std::string r(role);
  require_same_device(device_of, role, meta.scale_inv, (r + ".scale_inv").c_str());
  if (meta.meta.scale != nullptr) require_same_device(device_of, role, meta.scale, (r + ".scale").c_str());
  if (meta.meta.amax != nullptr) require_same_device(device_of, role, meta.amax, (r + ".amax").c_str());
  if (meta.meta.ext != nullptr) require_same_device(device_of, role, meta.zero_point, (r + ".zero_point").c_str());
}

}  // namespace frugal::quant
