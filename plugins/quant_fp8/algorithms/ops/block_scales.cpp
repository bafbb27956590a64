#include "ops/block_scales.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "ops/chunks.hpp"
#include "ops/cpu_ops.hpp"
#include "ops/element_types.hpp"
#include "recipes/e8m0.hpp"
#include "recipes/limits.hpp"
#include "recipes/mx_scaling.hpp"
#include "recipes/scale_from_amax.hpp"

namespace frugal::quant::ops::detail {
namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

// Accumulates every row into its grid row's accumulators, in parallel over
// chunks of rows. Chunks whose rows share a grid row (per-tensor scaling,
// 128-row blocks) each fill a private partial grid; the partials are then
// merged. merge must be exact and order-free (a max), so the result is the
// same for any number of chunks.
//   add_row(r, acc): acc points at r's grid row (grid_cols accumulators).
template <class Acc, class AddRow, class Merge>
std::vector<Acc> reduce_blocks(const Grid& g, unsigned threads, Acc init, AddRow add_row, Merge merge) {
  const auto rows = static_cast<std::size_t>(g.rows);
  const unsigned chunks = chunk_count(rows, static_cast<std::size_t>(g.cols), threads);
  const auto grid_cols = static_cast<std::size_t>(g.grid_cols);
  std::vector<std::vector<Acc>> partial(chunks);
  std::vector<std::int64_t> first_grid_row(chunks, 0);
  run_chunks(rows, chunks, [&](unsigned c, std::size_t begin, std::size_t end) {
    const std::int64_t gr0 = static_cast<std::int64_t>(begin) / g.block_rows;
    const std::int64_t gr1 = static_cast<std::int64_t>(end - 1) / g.block_rows;
    first_grid_row[c] = gr0;
    partial[c].assign(static_cast<std::size_t>(gr1 - gr0 + 1) * grid_cols, init);
    for (auto r = static_cast<std::int64_t>(begin); r < static_cast<std::int64_t>(end); ++r)
      add_row(r, partial[c].data() + static_cast<std::size_t>(r / g.block_rows - gr0) * grid_cols);
  });
  if (chunks == 1) return std::move(partial[0]);  // it covers every grid row
  std::vector<Acc> total(g.size(), init);
  for (unsigned c = 0; c < chunks; ++c) {
    Acc* dst = total.data() + static_cast<std::size_t>(first_grid_row[c]) * grid_cols;
    for (std::size_t i = 0; i < partial[c].size(); ++i) merge(dst[i], partial[c][i]);
  }
  return total;
}

// Row r's elements into the accumulators of its grid row.
template <class T>
void add_row_keys(const Matrix& in, const Grid& g, std::int64_t r, std::int32_t* acc) {
  using S = typename T::Storage;
  const S* row = row_of<const S>(in, r);
  if (g.per_column()) {
    max_key_columns<T>(row, acc, static_cast<std::size_t>(g.cols));
    return;
  }
  for (std::int64_t gc = 0; gc < g.grid_cols; ++gc)
    acc[gc] = max_key<T>(row + g.run_begin(gc), g.run_length(gc), acc[gc]);
}

template <class T>
void add_row_ranges(const Matrix& in, const Grid& g, std::int64_t r, Range* acc) {
  using S = typename T::Storage;
  const S* row = row_of<const S>(in, r);
  if (g.per_column()) {
    for (std::int64_t c = 0; c < g.cols; ++c) acc[c] = widen_range<T>(row + c, 1, acc[c]);
    return;
  }
  for (std::int64_t gc = 0; gc < g.grid_cols; ++gc)
    acc[gc] = widen_range<T>(row + g.run_begin(gc), g.run_length(gc), acc[gc]);
}

void merge_keys(std::int32_t& a, std::int32_t b) { a = a > b ? a : b; }

void merge_ranges(Range& a, const Range& b) {
  a.lo = b.lo < a.lo ? b.lo : a.lo;
  a.hi = b.hi > a.hi ? b.hi : a.hi;
  a.nan = a.nan || b.nan;
}

template <class T>
void keys_to_amax(const std::vector<std::int32_t>& keys, std::vector<float>& amax) {
  for (std::size_t i = 0; i < keys.size(); ++i) amax[i] = key_amax<T>(keys[i]);
}

void ranges_to_amax(const std::vector<Range>& ranges, std::vector<float>& amax) {
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    // hi starts at +0 and only grows, so an all-zero block gives +0, never -0.
    const float m = -ranges[i].lo > ranges[i].hi ? -ranges[i].lo : ranges[i].hi;
    amax[i] = ranges[i].nan ? kNan : m;
  }
}

float format_max(ElementFormat format) {
  switch (format) {
    case ElementFormat::e4m3: return recipes::kE4M3Max;
    case ElementFormat::e5m2: return recipes::kE5M2Max;
    case ElementFormat::int8:
    case ElementFormat::int8_asym: break;
  }
  return recipes::kInt8Max;
}

// Block i's scales by the recipe, from its amax (every recipe but int8_asym).
void scale_from_amax(const QuantizeOp& op, float fmax, BlockScales& s, std::size_t i) {
  switch (op.recipe) {
    case Recipe::delayed:
      s.scale[i] = op.fixed_scale;
      s.scale_inv[i] = op.fixed_scale_inv;
      return;
    case Recipe::mx: {
      const std::uint8_t code = recipes::mx_scale_code(s.amax[i], fmax);
      s.e8m0[i] = code;
      s.scale_inv[i] = recipes::e8m0_decode(code);
      s.scale[i] = code == recipes::kE8M0Nan ? kNan : recipes::e8m0_decode(static_cast<std::uint8_t>(254 - code));
      return;
    }
    case Recipe::current:
    case Recipe::per_channel:
    case Recipe::block: break;
  }
  const recipes::ScalePair p = recipes::current_scale(s.amax[i], fmax);
  s.scale[i] = p.scale;
  s.scale_inv[i] = p.scale_inv;
}

// Phase two for blocks [begin, end): their scales from s.amax, or from
// their ranges for int8_asym.
void scales_for(const QuantizeOp& op, const Range* ranges, BlockScales& s, std::size_t begin, std::size_t end) {
  const float fmax = format_max(op.format);
  for (std::size_t i = begin; i < end; ++i) {
    if (op.format == ElementFormat::int8_asym) {
      const Int8AsymmetricScale a = int8_asymmetric_scale(ranges[i].lo, ranges[i].hi);
      s.scale[i] = a.scale;
      s.scale_inv[i] = a.scale_inv;
      s.zero_point[i] = a.zero_point;
    } else {
      scale_from_amax(op, fmax, s, i);
    }
  }
}

}  // namespace

void BlockScales::resize(std::size_t n, bool mx) {
  amax.resize(n);
  scale.resize(n);
  scale_inv.resize(n);
  zero_point.assign(n, 0);
  e8m0.resize(mx ? n : 0);
}

BlockScales compute_block_scales(const QuantizeOp& op, const Grid& g) {
  BlockScales s;
  const std::size_t n = g.size();
  s.resize(n, op.recipe == Recipe::mx);
  const bool asym = op.format == ElementFormat::int8_asym;
  std::vector<Range> ranges;
  visit_float_type(op.input.dtype, [&](auto t) {
    using T = decltype(t);
    if (asym) {
      ranges = reduce_blocks<Range>(
          g, op.threads, Range{}, [&](std::int64_t r, Range* acc) { add_row_ranges<T>(op.input, g, r, acc); },
          merge_ranges);
      ranges_to_amax(ranges, s.amax);
    } else {
      const auto keys = reduce_blocks<std::int32_t>(
          g, op.threads, 0, [&](std::int64_t r, std::int32_t* acc) { add_row_keys<T>(op.input, g, r, acc); },
          merge_keys);
      keys_to_amax<T>(keys, s.amax);
    }
  });
  // mx_scale_code costs a few dozen element conversions; the grid is big
  // (one block per 32 elements), so this phase runs in parallel too.
  parallel_for(n, 32, op.threads,
               [&](std::size_t begin, std::size_t end) { scales_for(op, ranges.data(), s, begin, end); });
  return s;
}

void compute_row_scales(const QuantizeOp& op, const Grid& g, std::int64_t r, RowScales& out) {
  const auto n = static_cast<std::size_t>(g.grid_cols);
  if (out.scales.scale.size() != n) out.scales.resize(n, op.recipe == Recipe::mx);
  visit_float_type(op.input.dtype, [&](auto t) {
    using T = decltype(t);
    if (op.format == ElementFormat::int8_asym) {
      out.ranges.assign(n, Range{});
      add_row_ranges<T>(op.input, g, r, out.ranges.data());
      ranges_to_amax(out.ranges, out.scales.amax);
    } else {
      out.keys.assign(n, 0);
      add_row_keys<T>(op.input, g, r, out.keys.data());
      keys_to_amax<T>(out.keys, out.scales.amax);
    }
  });
  scales_for(op, out.ranges.data(), out.scales, 0, n);
}

}  // namespace frugal::quant::ops::detail
