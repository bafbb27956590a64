// Checking hosts' tensors for the quantizer and rewriting them into the
// 2-D views plugins receive (frugal/quantizer_vtable.h): shape [rows, cols],
// explicit strides with strides[1] == 1, byte_offset folded into data,
// pinned host memory reported as CPU. Internal to libfrugal.
#pragma once

#include <cstdint>
#include <string>

#include "frugal/quantizer_vtable.h"

namespace frugal::quant {

// The block grid of scales for a [rows, cols] tensor under `layout`.
struct Grid {
  int64_t rows = 0;
  int64_t cols = 0;
};
Grid scale_grid(const frugal_quant_layout& layout, int64_t rows, int64_t cols);

// A 2-D view handed to a plugin. Not copyable: view points at shape and
// strides inside the object.
struct Matrix2D {
  frugal_tensor view{};
  int64_t shape[2]{};
  int64_t strides[2]{};

  Matrix2D() = default;
  Matrix2D(const Matrix2D&) = delete;
  Matrix2D& operator=(const Matrix2D&) = delete;

  int64_t rows() const { return shape[0]; }
  int64_t cols() const { return shape[1]; }
};

// Checks `tensor` (role names it in errors, e.g. "input") and fills `out`:
// at least one dimension and one element, known dtype and device, the last
// dimension contiguous, the leading ones collapsible into one row stride,
// rows that do not overlap. Leaves dtype checks to the caller.
void to_matrix(const frugal_tensor* tensor, const char* role, Matrix2D& out);

// A quantized tensor's scales, rewritten for the plugin: every scale tensor
// compact [grid.rows, grid.cols] with the dtype the layout names.
struct PluginMeta {
  frugal_quant_meta meta{};
  Matrix2D scale;
  Matrix2D scale_inv;
  Matrix2D amax;
  Matrix2D zero_point;
  frugal_quant_zero_point_ext zero_point_ext{};

  PluginMeta() = default;
  PluginMeta(const PluginMeta&) = delete;
  PluginMeta& operator=(const PluginMeta&) = delete;
};

// Checks `meta` (of the tensor named `role`) against `layout` and a tensor of
// rows x cols, and fills `out`. require_scale_inv: quantize writes and
// dequantize reads scale_inv, so both need it.
void to_plugin_meta(const frugal_quant_meta* meta, const char* role, const frugal_quant_layout& layout, int64_t rows,
                    int64_t cols, PluginMeta& out);

// Fails with INVALID_ARGUMENT unless `b` lives on the same device as `a`
// (CPU and pinned host memory count as one).
void require_same_device(const Matrix2D& a, const char* role_a, const Matrix2D& b, const char* role_b);

// Every element of `meta`'s scale tensors on `device`.
void require_meta_on(const PluginMeta& meta, const char* role, const Matrix2D& device_of);

// Names for messages: "float32", "per_channel".
const char* dtype_name(int32_t dtype);
const char* scaling_mode_name(int32_t mode);
// "CPU", "CUDA:1".
std::string device_name(const frugal_device& device);

}  // namespace frugal::quant
