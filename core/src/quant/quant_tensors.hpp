// Checking the quantizer's scale tensors and rewriting them for the plugin
// (frugal/quantizer_vtable.h), on top of the 2-D views of matrix_view.hpp.
// Internal to libfrugal.
#pragma once

#include <cstdint>
#include <string>

#include "frugal/quantizer_vtable.h"
#include "matrix_view.hpp"

namespace frugal::quant {

// The block grid of scales for a [rows, cols] tensor under `layout`.
struct Grid {
  int64_t rows = 0;
  int64_t cols = 0;
};
Grid scale_grid(const frugal_quant_layout& layout, int64_t rows, int64_t cols);

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

// Every element of `meta`'s scale tensors on `device`.
void require_meta_on(const PluginMeta& meta, const char* role, const Matrix2D& device_of);

// "per_channel", for messages.
const char* scaling_mode_name(int32_t mode);

}  // namespace frugal::quant
