// quantize_cpu and dequantize_cpu: three phases over the block grid (block
// statistics, block scales, element conversion), each parallel over rows or
// blocks. The scale phases live in block_scales.cpp, the loops in
// span_kernels.hpp.
#include "ops/cpu_ops.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "ops/block_grid.hpp"
#include "ops/block_scales.hpp"
#include "ops/chunks.hpp"
#include "ops/codecs.hpp"
#include "ops/element_types.hpp"
#include "ops/span_kernels.hpp"
#include "ops/transpose.hpp"
#include "recipes/e8m0.hpp"

namespace frugal::quant::ops {
namespace {

using detail::BlockScales;
using detail::Grid;
using detail::row_of;

void require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("quant_fp8 cpu ops: ") + what);
}

bool per_tensor(Recipe r) { return r == Recipe::delayed || r == Recipe::current; }

// Per-tensor recipes have one block whatever extents the op carries.
Grid grid_of(const Matrix& m, Recipe recipe, std::int64_t block_rows, std::int64_t block_cols) {
  return per_tensor(recipe) ? Grid(m.rows, m.cols, m.rows, m.cols) : Grid(m.rows, m.cols, block_rows, block_cols);
}

// Calls f(r, first_column, length, scales) for every run of rows [r0, r1)
// that shares its scales: one BlockScale per block of a row, or the whole
// row with ColumnScales under per-column scaling.
template <class F>
void for_each_run(const Grid& g, const BlockScales& s, std::int64_t r0, std::int64_t r1, F f) {
  for (std::int64_t r = r0; r < r1; ++r) {
    const std::size_t base = g.row_base(r);
    if (g.per_column()) {
      f(r, std::int64_t{0}, static_cast<std::size_t>(g.cols), s.columns(base));
      continue;
    }
    for (std::int64_t gc = 0; gc < g.grid_cols; ++gc) f(r, g.run_begin(gc), g.run_length(gc), s.at(base + gc));
  }
}

// Codes (and fake) of rows [r0, r1). The fake of a run is decoded from the
// codes just written, after the run's input was read: fake may be the input.
template <class T, class Codec>
void encode_rows(const QuantizeOp& op, const Grid& g, const BlockScales& s, std::int64_t r0, std::int64_t r1) {
  using S = typename T::Storage;
  using Code = typename Codec::Code;
  for_each_run(g, s, r0, r1, [&](std::int64_t r, std::int64_t c0, std::size_t n, auto scales) {
    Code* out = row_of<Code>(op.output, r) + c0;
    detail::encode_run<T, Codec>(row_of<const S>(op.input, r) + c0, out, n, scales);
    if (op.fake != nullptr) detail::decode_run<T, Codec>(out, row_of<S>(*op.fake, r) + c0, n, scales);
  });
}

template <class T, class Codec>
void decode_rows(const DequantizeOp& op, const Grid& g, const BlockScales& s, std::int64_t r0, std::int64_t r1) {
  for_each_run(g, s, r0, r1, [&](std::int64_t r, std::int64_t c0, std::size_t n, auto scales) {
    detail::decode_run<T, Codec>(row_of<const typename Codec::Code>(op.input, r) + c0,
                                 row_of<typename T::Storage>(op.output, r) + c0, n, scales);
  });
}

// The whole tensor's amax from the blocks': NaN if any is NaN.
float tensor_amax(const std::vector<float>& block_amax) {
  float m = 0.0f;
  for (const float a : block_amax) {
    if (std::isnan(a)) return std::numeric_limits<float>::quiet_NaN();
    m = a > m ? a : m;
  }
  return m;
}

void write_scales(const ScaleOutputs& out, const BlockScales& s, bool mx, float amax) {
  const std::size_t n = s.scale_inv.size();
  if (out.scale_inv != nullptr) {
    if (mx) {
      std::memcpy(out.scale_inv, s.e8m0.data(), n);
    } else {
      std::memcpy(out.scale_inv, s.scale_inv.data(), n * sizeof(float));
    }
  }
  // MX has no fp32 scale tensor: scale_inv's E8M0 codes are the scales.
  if (out.scale != nullptr && !mx) std::memcpy(out.scale, s.scale.data(), n * sizeof(float));
  if (out.zero_point != nullptr) std::memcpy(out.zero_point, s.zero_point.data(), n);
  if (out.amax != nullptr) *out.amax = amax;
}

}  // namespace

float quantize_cpu(const QuantizeOp& op) {
  const Matrix& in = op.input;
  require(op.output.rows == in.rows && op.output.cols == in.cols, "output shape differs from the input's");
  const Grid g = grid_of(in, op.recipe, op.block_rows, op.block_cols);
  if (op.output_t != nullptr) {
    require(g.size() == 1, "output_t needs per-tensor scaling");
    require(op.output_t->rows == in.cols && op.output_t->cols == in.rows, "output_t is not [cols, rows]");
  }
  const BlockScales s = detail::compute_block_scales(op, g);
  detail::visit_float_type(in.dtype, [&](auto t) {
    detail::visit_codec(op.format, op.saturate, [&](auto codec) {
      detail::parallel_for(static_cast<std::size_t>(in.rows), static_cast<std::size_t>(in.cols), op.threads,
                           [&](std::size_t begin, std::size_t end) {
                             encode_rows<decltype(t), decltype(codec)>(op, g, s, static_cast<std::int64_t>(begin),
                                                                       static_cast<std::int64_t>(end));
                           });
    });
  });
  if (op.output_t != nullptr) detail::transpose_codes(op.output, *op.output_t, op.threads);
  const float amax = tensor_amax(s.amax);
  const bool mx = op.recipe == Recipe::mx;
  write_scales(op.scales, s, mx, amax);
  write_scales(op.scales_t, s, mx, amax);
  return amax;
}

void dequantize_cpu(const DequantizeOp& op) {
  const Matrix& in = op.input;
  require(op.output.rows == in.rows && op.output.cols == in.cols, "output shape differs from the input's");
  const Grid g = grid_of(in, op.recipe, op.block_rows, op.block_cols);
  const std::size_t n = g.size();
  // The scales as fp32 over the grid (E8M0 decoded); decoding reads only
  // scale_inv and the zero points, so scale just mirrors scale_inv.
  BlockScales s;
  s.scale_inv.resize(n);
  if (op.recipe == Recipe::mx) {
    const auto* codes = static_cast<const std::uint8_t*>(op.scale_inv);
    for (std::size_t i = 0; i < n; ++i) s.scale_inv[i] = recipes::e8m0_decode(codes[i]);
  } else {
    std::memcpy(s.scale_inv.data(), op.scale_inv, n * sizeof(float));
  }
  s.scale = s.scale_inv;
  s.zero_point.assign(n, 0);
  if (op.format == ElementFormat::int8_asym) {
    require(op.zero_point != nullptr, "int8_asym needs zero points");
    std::memcpy(s.zero_point.data(), op.zero_point, n);
  }
  detail::visit_float_type(op.output.dtype, [&](auto t) {
    detail::visit_codec(op.format, true, [&](auto codec) {
      detail::parallel_for(static_cast<std::size_t>(in.rows), static_cast<std::size_t>(in.cols), op.threads,
                           [&](std::size_t begin, std::size_t end) {
                             decode_rows<decltype(t), decltype(codec)>(op, g, s, static_cast<std::int64_t>(begin),
                                                                       static_cast<std::int64_t>(end));
                           });
    });
  });
}

}  // namespace frugal::quant::ops
