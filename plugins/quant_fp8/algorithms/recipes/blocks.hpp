// How the recipes divide a matrix: a channel axis and a block shape. The
// matrix itself is an fp32 frugal::sdk::MatrixView (frugal/sdk/tensor_view.hpp),
// rows contiguous, any row stride.
#pragma once

#include <cstddef>

namespace frugal::quant::recipes {

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
