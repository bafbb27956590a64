// dequantize_cpu: every run of a row decoded with its block's scale_inv
// (and zero point), in parallel over rows.
#include <cstring>
#include <stdexcept>

#include "ops/block_scales.hpp"
#include "ops/chunks.hpp"
#include "ops/codecs.hpp"
#include "ops/cpu_ops.hpp"
#include "ops/element_types.hpp"
#include "ops/row_runs.hpp"
#include "ops/span_kernels.hpp"
#include "recipes/e8m0.hpp"

namespace frugal::quant::ops {
namespace {

using detail::BlockScales;
using detail::Grid;
using detail::row_of;

template <class T, class Codec>
void decode_rows(const DequantizeOp& op, const Grid& g, const BlockScales& s, std::int64_t r0, std::int64_t r1) {
  for (std::int64_t r = r0; r < r1; ++r) {
    const auto* in = row_of<const typename Codec::Code>(op.input, r);
    auto* out = row_of<typename T::Storage>(op.output, r);
    detail::for_each_run(g, s, g.row_base(r), [&](std::int64_t c0, std::size_t n, auto scales) {
      detail::decode_run<T, Codec>(in + c0, out + c0, n, scales);
    });
  }
}

}  // namespace

void dequantize_cpu(const DequantizeOp& op) {
  const Matrix& in = op.input;
  if (op.output.rows() != in.rows() || op.output.cols() != in.cols())
    throw std::invalid_argument("quant_fp8 dequantize_cpu: output shape differs from the input's");
  const Grid g = detail::grid_of(in, op.recipe, op.block_rows, op.block_cols);
  const std::size_t n = g.size();
  // The scales as fp32 over the grid (E8M0 decoded); decoding reads only
  // scale_inv and the zero points, so scale just mirrors scale_inv.
  BlockScales s;
  s.resize(n, false);
  if (op.recipe == Recipe::mx) {
    const auto* codes = static_cast<const std::uint8_t*>(op.scale_inv);
    for (std::size_t i = 0; i < n; ++i) s.scale_inv[i] = recipes::e8m0_decode(codes[i]);
  } else {
    std::memcpy(s.scale_inv.data(), op.scale_inv, n * sizeof(float));
  }
  s.scale = s.scale_inv;
  if (op.format == ElementFormat::int8_asym) {
    if (op.zero_point == nullptr) throw std::invalid_argument("quant_fp8 dequantize_cpu: int8_asym needs zero points");
    std::memcpy(s.zero_point.data(), op.zero_point, n);
  }
  detail::visit_float_type(op.output.dtype, [&](auto t) {
    detail::visit_codec(op.format, true, [&](auto codec) {
      detail::parallel_for(static_cast<std::size_t>(in.rows()), static_cast<std::size_t>(in.cols()), op.threads,
                           [&](std::size_t begin, std::size_t end) {
                             decode_rows<decltype(t), decltype(codec)>(op, g, s, static_cast<std::int64_t>(begin),
                                                                       static_cast<std::int64_t>(end));
                           });
    });
  });
}

}  // namespace frugal::quant::ops
