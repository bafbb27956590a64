// quantize_cpu: block statistics, block scales, element conversion.
// Blocks one row high (1 x N blocks, MX, per-row scaling) take all three
// steps row by row, while the row is in cache; taller blocks (per-tensor,
// 128 x 128, per-column) measure the whole grid first (block_scales.cpp).
// Either way the work is split over rows. The loops are in span_kernels.hpp;
// dequantize_cpu is in dequantize_cpu.cpp, gemm_cpu in gemm_cpu.cpp.
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "ops/block_grid.hpp"
#include "ops/block_scales.hpp"
#include "ops/chunks.hpp"
#include "ops/codecs.hpp"
#include "ops/cpu_ops.hpp"
#include "ops/element_types.hpp"
#include "ops/row_runs.hpp"
#include "ops/span_kernels.hpp"
#include "ops/transpose.hpp"

namespace frugal::quant::ops {
namespace {

using detail::BlockScales;
using detail::Grid;
using detail::row_of;

void require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("quant_fp8 quantize_cpu: ") + what);
}

// max of two amaxes, NaN propagating.
float max_amax(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<float>::quiet_NaN();
  return a > b ? a : b;
}

float max_amax(const std::vector<float>& amaxes) {
  float m = 0.0f;
  for (const float a : amaxes) m = max_amax(m, a);
  return m;
}

// Codes (and fake) of row r. The fake of a run is decoded from the codes
// just written, after the run's input was read: fake may be the input.
template <class T, class Codec>
void encode_row(const QuantizeOp& op, const Grid& g, const BlockScales& s, std::int64_t r, std::size_t base) {
  using S = typename T::Storage;
  const S* in = row_of<const S>(op.input, r);
  auto* out = row_of<typename Codec::Code>(op.output, r);
  S* fake = op.fake != nullptr ? row_of<S>(*op.fake, r) : nullptr;
  detail::for_each_run(g, s, base, [&](std::int64_t c0, std::size_t n, auto scales) {
    detail::encode_run<T, Codec>(in + c0, out + c0, n, scales);
    if (fake != nullptr) detail::decode_run<T, Codec>(out + c0, fake + c0, n, scales);
  });
}

// s's blocks into the scale tensors from block `first` on.
void write_scales(const ScaleOutputs& out, const BlockScales& s, bool mx, std::size_t first) {
  const std::size_t n = s.scale_inv.size();
  if (out.scale_inv != nullptr) {
    if (mx) {
      std::memcpy(static_cast<std::uint8_t*>(out.scale_inv) + first, s.e8m0.data(), n);
    } else {
      std::memcpy(static_cast<float*>(out.scale_inv) + first, s.scale_inv.data(), n * sizeof(float));
    }
  }
  // MX has no fp32 scale tensor: scale_inv's E8M0 codes are the scales.
  if (out.scale != nullptr && !mx) std::memcpy(out.scale + first, s.scale.data(), n * sizeof(float));
  if (out.zero_point != nullptr) std::memcpy(out.zero_point + first, s.zero_point.data(), n);
}

// Rows [r0, r1) of a grid whose blocks are one row high; returns their amax.
template <class T, class Codec>
float quantize_row_blocks(const QuantizeOp& op, const Grid& g, std::int64_t r0, std::int64_t r1) {
  detail::RowScales row;
  float amax = 0.0f;
  for (std::int64_t r = r0; r < r1; ++r) {
    detail::compute_row_scales(op, g, r, row);
    encode_row<T, Codec>(op, g, row.scales, r, 0);
    const std::size_t first = g.row_base(r);
    write_scales(op.scales, row.scales, op.recipe == Recipe::mx, first);
    write_scales(op.scales_t, row.scales, op.recipe == Recipe::mx, first);
    amax = max_amax(amax, max_amax(row.scales.amax));
  }
  return amax;
}

// Delayed scaling knows its scale before it reads the input, so the amax
// and the cast share one pass over memory: each row is measured, then
// converted while it is still in cache. (Measured first: fake may be the
// input and overwrite it.)
template <class T, class Codec>
float quantize_delayed(const QuantizeOp& op, const Grid& g, unsigned chunks) {
  BlockScales s;
  s.resize(1, false);
  s.scale[0] = op.fixed_scale;
  s.scale_inv[0] = op.fixed_scale_inv;
  std::vector<std::int32_t> keys(chunks, 0);
  detail::run_chunks(static_cast<std::size_t>(g.rows), chunks, [&](unsigned c, std::size_t begin, std::size_t end) {
    std::int32_t key = 0;
    for (auto r = static_cast<std::int64_t>(begin); r < static_cast<std::int64_t>(end); ++r) {
      key = detail::max_key<T>(row_of<const typename T::Storage>(op.input, r), static_cast<std::size_t>(g.cols), key);
      encode_row<T, Codec>(op, g, s, r, 0);
    }
    keys[c] = key;
  });
  std::int32_t key = 0;
  for (const std::int32_t k : keys) key = k > key ? k : key;
  s.amax[0] = detail::key_amax<T>(key);
  write_scales(op.scales, s, false, 0);
  write_scales(op.scales_t, s, false, 0);
  return s.amax[0];
}

template <class T, class Codec>
float quantize_typed(const QuantizeOp& op, const Grid& g) {
  const auto rows = static_cast<std::size_t>(g.rows);
  const unsigned chunks = detail::chunk_count(rows, static_cast<std::size_t>(g.cols), op.threads);
  if (op.recipe == Recipe::delayed && op.format != ElementFormat::int8_asym)
    return quantize_delayed<T, Codec>(op, g, chunks);
  if (g.block_rows == 1) {
    std::vector<float> amax(chunks, 0.0f);
    detail::run_chunks(rows, chunks, [&](unsigned c, std::size_t begin, std::size_t end) {
      amax[c] = quantize_row_blocks<T, Codec>(op, g, static_cast<std::int64_t>(begin), static_cast<std::int64_t>(end));
    });
    return max_amax(amax);
  }
  const BlockScales s = detail::compute_block_scales(op, g);
  detail::run_chunks(rows, chunks, [&](unsigned, std::size_t begin, std::size_t end) {
    for (auto r = static_cast<std::int64_t>(begin); r < static_cast<std::int64_t>(end); ++r)
      encode_row<T, Codec>(op, g, s, r, g.row_base(r));
  });
  write_scales(op.scales, s, op.recipe == Recipe::mx, 0);
  write_scales(op.scales_t, s, op.recipe == Recipe::mx, 0);
  return max_amax(s.amax);
}

}  // namespace

float amax_cpu(const Matrix& in, unsigned threads) {
  return detail::visit_float_type(in.dtype, [&](auto t) {
    using T = decltype(t);
    const auto rows = static_cast<std::size_t>(in.rows());
    const auto cols = static_cast<std::size_t>(in.cols());
    const unsigned chunks = detail::chunk_count(rows, cols, threads);
    std::vector<std::int32_t> keys(chunks, 0);
    detail::run_chunks(rows, chunks, [&](unsigned c, std::size_t begin, std::size_t end) {
      std::int32_t key = 0;
      for (auto r = static_cast<std::int64_t>(begin); r < static_cast<std::int64_t>(end); ++r)
        key = detail::max_key<T>(row_of<const typename T::Storage>(in, r), cols, key);
      keys[c] = key;
    });
    std::int32_t key = 0;
    for (const std::int32_t k : keys) key = k > key ? k : key;
    return detail::key_amax<T>(key);
  });
}

float quantize_cpu(const QuantizeOp& op) {
  const Matrix& in = op.input;
  require(op.output.rows() == in.rows() && op.output.cols() == in.cols(), "output shape differs from the input's");
  const Grid g = detail::grid_of(in, op.recipe, op.block_rows, op.block_cols);
  if (op.output_t != nullptr) {
    require(g.size() == 1, "output_t needs per-tensor scaling");
    require(op.output_t->rows() == in.cols() && op.output_t->cols() == in.rows(), "output_t is not [cols, rows]");
  }
  const float amax = detail::visit_float_type(in.dtype, [&](auto t) {
    return detail::visit_codec(op.format, op.saturate,
                               [&](auto codec) { return quantize_typed<decltype(t), decltype(codec)>(op, g); });
  });
  if (op.output_t != nullptr) detail::transpose_codes(op.output, *op.output_t, op.threads);
  for (float* out : {op.scales.amax, op.scales_t.amax}) {
    if (out != nullptr) *out = amax;
  }
  return amax;
}

}  // namespace frugal::quant::ops
