#include "ops/transpose.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "ops/block_grid.hpp"
#include "ops/chunks.hpp"

namespace frugal::quant::ops::detail {

void transpose_codes(const Matrix& src, const Matrix& dst, unsigned threads) {
  // 64 x 64 byte tiles: a tile's 64 source rows and 64 destination rows
  // (4 KiB each way) stay in L1 while it is copied.
  constexpr std::int64_t kTile = 64;
  const std::int64_t tile_rows = (src.cols + kTile - 1) / kTile;  // tiles down dst
  // Each chunk owns whole tiles of dst rows, so writes never share a line.
  parallel_for(static_cast<std::size_t>(tile_rows), static_cast<std::size_t>(kTile * src.rows), threads,
               [&](std::size_t begin, std::size_t end) {
                 for (auto t = static_cast<std::int64_t>(begin); t < static_cast<std::int64_t>(end); ++t) {
                   const std::int64_t c0 = t * kTile, c1 = std::min(src.cols, c0 + kTile);
                   for (std::int64_t r0 = 0; r0 < src.rows; r0 += kTile) {
                     const std::int64_t r1 = std::min(src.rows, r0 + kTile);
                     for (std::int64_t c = c0; c < c1; ++c) {
                       std::uint8_t* out = row_of<std::uint8_t>(dst, c);
                       for (std::int64_t r = r0; r < r1; ++r) out[r] = row_of<const std::uint8_t>(src, r)[c];
                     }
                   }
                 }
               });
}

}  // namespace frugal::quant::ops::detail
