// The 2-D shapes the recipes work on: a row-major fp32 matrix, a channel
// axis and a block shape.
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>

namespace frugal::quant::recipes {

// A contiguous row-major rows x cols matrix. Validated on construction so
// every recipe can index it without checking again.
struct MatrixView {
  std::span<const float> data;
  std::size_t rows = 0;
  std::size_t cols = 0;

  MatrixView(std::span<const float> d, std::size_t r, std::size_t c) : data(d), rows(r), cols(c) {
    // Checked without computing r * c first, which could wrap.
    if (c != 0 && r > d.size() / c) throw std::invalid_argument("MatrixView: rows * cols exceeds the data");
    if (r * c != d.size()) throw std::invalid_argument("MatrixView: data size is not rows * cols");
  }

  [[nodiscard]] float at(std::size_t r, std::size_t c) const noexcept { return data[r * cols + c]; }
};

// Per-channel scaling: one scale per row or one per column.
enum class Axis { rows, cols };

// A block of block_rows x block_cols elements. Blocks tile the matrix from
// the top-left corner; the last block row / column may be partial (see
// amax.hpp).
struct BlockShape {
  std::size_t rows = 1;
  std::size_t cols = 1;
};

// DeepSeek-V3's fine-grained FP8 recipe: 1x128 tiles for activations (one
// scale per row per 128 columns), 128x128 blocks for weights.
inline constexpr BlockShape kActivationBlock{1, 128};
inline constexpr BlockShape kWeightBlock{128, 128};
// MX: 32 consecutive elements along a row share one E8M0 scale.
inline constexpr BlockShape kMxBlock{1, 32};

// Number of blocks along a dimension of n elements: ceil(n / b).
[[nodiscard]] constexpr std::size_t block_count(std::size_t n, std::size_t b) noexcept { return (n + b - 1) / b; }

}  // namespace frugal::quant::recipes
