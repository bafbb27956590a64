// One quantizer operation, resolved: what the plugin glue hands to the CPU
// implementation (ops/cpu_ops.hpp) and to the CUDA one (cuda/cuda_ops.hpp).
// Both must produce the same bytes for the same op; the CPU one is the
// reference the device tests compare against.
//
// Everything here has already been validated by libfrugal (shapes, dtypes,
// strides, scale-grid sizes), so implementations only assert.
//
// The semantics both implementations follow, per scale block b (the grid is
// ceil(rows / block_rows) x ceil(cols / block_cols), row-major; partial edge
// blocks cover what is left):
//   amax_b      = max |x| over the block, NaN propagating (recipes/amax.hpp);
//   delayed:      scale = fixed_scale, scale_inv = fixed_scale_inv (one block);
//   current, per_channel, block:
//                 (scale, scale_inv) = recipes::current_scale(amax_b, fmax);
//   mx:           code = recipes::mx_scale_code(amax_b, fmax);
//                 scale_inv = e8m0_decode(code) = 2^(code - 127), the
//                 value stored; scale = e8m0_decode(254 - code) = its exact
//                 reciprocal; code 0xFF: both NaN;
//   int8 (symmetric): scale from recipes::current_scale(amax_b, 127);
//                 q = quantize_int8_symmetric(x, scale_inv) (formats/int8.hpp);
//   int8_asym:    per block min/max (NaN ignored), formats in cpu_ops.cpp;
//   fp8 codes:    q = fp32_to_fp8(float(x) * scale, format, saturate);
//   fake:         fake = to_input_dtype(fp8_to_fp32(q) * scale_inv) (RNE);
//                 int8: to_input_dtype(dequantize_int8_*(q, scale_inv[, zp]));
//   amax (whole tensor): max of amax_b, NaN propagating.
// fmax: 448 (E4M3), 57344 (E5M2), 127 (INT8).
#pragma once

#include <cstdint>

#include "frugal/sdk/tensor_view.hpp"

namespace frugal::quant::ops {

enum class ElementFormat : std::uint8_t { e4m3, e5m2, int8, int8_asym };
enum class Recipe : std::uint8_t { delayed, current, per_channel, block, mx };

// A tensor as the ops see it: the SDK's type-erased 2-D view (element
// (r, c) at data() + (r * row_stride() + c) * dtype_size(dtype), row_stride()
// >= cols()) with the dtype that says what its elements are.
struct Matrix : sdk::MatrixView<void> {
  std::int32_t dtype = 0;  // frugal_dtype_values
};

// Scale tensors over the block grid, compact row-major. scale_inv is fp32,
// or E8M0 bytes for mx; scale is fp32 or null (always null for mx);
// zero_point only for int8_asym; amax one fp32 or null.
struct ScaleOutputs {
  void* scale_inv = nullptr;
  float* scale = nullptr;
  std::int8_t* zero_point = nullptr;
  float* amax = nullptr;
};

struct QuantizeOp {
  Matrix input;                      // fp32, bf16 or fp16
  Matrix output;                     // codes: E4M3FN, E5M2 or INT8
  const Matrix* output_t = nullptr;  // [cols, rows] transposed codes; per-tensor recipes only
  const Matrix* fake = nullptr;      // input's dtype; may alias input
  ElementFormat format = ElementFormat::e4m3;
  bool saturate = true;
  Recipe recipe = Recipe::current;
  std::int64_t block_rows = 1;  // resolved extents, >= 1 (per-tensor: rows x cols)
  std::int64_t block_cols = 1;
  float fixed_scale = 1.0f;      // delayed only
  float fixed_scale_inv = 1.0f;  // delayed only
  ScaleOutputs scales;           // for output
  ScaleOutputs scales_t;         // for output_t: any non-null member gets the same values
  void* stream = nullptr;        // cudaStream_t (CUDA only)
  unsigned threads = 0;          // CPU only: 0 = hardware concurrency
};

struct DequantizeOp {
  Matrix input;   // codes
  Matrix output;  // fp32, bf16 or fp16
  ElementFormat format = ElementFormat::e4m3;
  Recipe recipe = Recipe::current;
  std::int64_t block_rows = 1;  // resolved extents, >= 1
  std::int64_t block_cols = 1;
  const void* scale_inv = nullptr;          // fp32 or E8M0 (mx)
  const std::int8_t* zero_point = nullptr;  // int8_asym only
  void* stream = nullptr;
  unsigned threads = 0;
};

// D = alpha * (A * scale_inv_a) * (B * scale_inv_b)^T, fp32 accumulation.
// a: [m, k], b: [n, k], FP8 codes (not both E5M2); d: [m, n] fp32, bf16,
// or FP8 (then d_scale multiplies before the saturating cast and d_amax, if
// not null, gets amax(D) before scaling).
struct GemmOp {
  Matrix a;
  Matrix b;
  Matrix d;
  const float* scale_inv_a = nullptr;  // one fp32 each (device memory for CUDA)
  const float* scale_inv_b = nullptr;
  const float* d_scale = nullptr;  // FP8 d only
  float* d_amax = nullptr;         // optional
  float alpha = 1.0f;
  bool fast_accum = false;  // CUDA only
  void* stream = nullptr;
  unsigned threads = 0;
};

}  // namespace frugal::quant::ops
