// Walking a row by the runs of elements that share their scales. Internal
// to ops/.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ops/block_grid.hpp"
#include "ops/block_scales.hpp"

namespace frugal::quant::ops::detail {

// Calls f(first_column, length, scales) for every run of a row: one
// BlockScale per block, or the whole row with ColumnScales under
// per-column scaling. `base` indexes the row's first block in s.
template <class F>
void for_each_run(const Grid& g, const BlockScales& s, std::size_t base, F f) {
  if (g.per_column()) {
    f(std::int64_t{0}, static_cast<std::size_t>(g.cols), s.columns(base));
    return;
  }
  for (std::int64_t gc = 0; gc < g.grid_cols; ++gc) f(g.run_begin(gc), g.run_length(gc), s.at(base + gc));
}

// Per-tensor recipes have one block whatever extents the op carries.
inline Grid grid_of(const Matrix& m, Recipe recipe, std::int64_t block_rows, std::int64_t block_cols) {
  const bool per_tensor = recipe == Recipe::delayed || recipe == Recipe::current;
  return per_tensor ? Grid(m.rows(), m.cols(), m.rows(), m.cols()) : Grid(m.rows(), m.cols(), block_rows, block_cols);
}

}  // namespace frugal::quant::ops::detail
