// The scale-block grid of an operation and row access to its matrices.
// Internal to ops/.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "ops/quant_op.hpp"

namespace frugal::quant::ops::detail {

// Blocks tile the matrix from the top-left corner; the last block row and
// column may be partial.
struct Grid {
  std::int64_t rows = 0;  // of the matrix
  std::int64_t cols = 0;
  std::int64_t block_rows = 1;  // >= 1
  std::int64_t block_cols = 1;
  std::int64_t grid_rows = 0;  // ceil(rows / block_rows)
  std::int64_t grid_cols = 0;

  Grid(std::int64_t r, std::int64_t c, std::int64_t br, std::int64_t bc)
      : rows(r),
        cols(c),
        block_rows(std::max<std::int64_t>(br, 1)),
        block_cols(std::max<std::int64_t>(bc, 1)),
        grid_rows((r + block_rows - 1) / block_rows),
        grid_cols((c + block_cols - 1) / block_cols) {}

  [[nodiscard]] std::size_t size() const noexcept { return static_cast<std::size_t>(grid_rows * grid_cols); }
  // Per-column scaling: every column is a block of its own, so a row is
  // converted in one run with a scale per element.
  [[nodiscard]] bool per_column() const noexcept { return block_cols == 1; }
  // Index of the first block of row r's grid row.
  [[nodiscard]] std::size_t row_base(std::int64_t r) const noexcept {
    return static_cast<std::size_t>((r / block_rows) * grid_cols);
  }
  [[nodiscard]] std::int64_t run_begin(std::int64_t gc) const noexcept { return gc * block_cols; }
  [[nodiscard]] std::size_t run_length(std::int64_t gc) const noexcept {
    return static_cast<std::size_t>(std::min(block_cols, cols - gc * block_cols));
  }
};

// Row r of a matrix as an array of S.
template <class S>
S* row_of(const Matrix& m, std::int64_t r) noexcept {
  return static_cast<S*>(m.data()) + r * m.row_stride();
}

}  // namespace frugal::quant::ops::detail
