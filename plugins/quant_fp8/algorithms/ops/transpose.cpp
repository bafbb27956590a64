#include "ops/transpose.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ops/block_grid.hpp"
#include "ops/chunks.hpp"

namespace frugal::quant::ops::detail {
namespace {

// Transposes an 8 x 8 byte block held as 8 words (word i = row i, byte j
// = column j, little-endian): three rounds of swapping the off-diagonal
// halves of 2x2, 4x4 and 8x8 blocks with masks (the recursive block
// transpose), 24 word operations instead of 64 byte moves.
void transpose8x8(std::uint64_t (&a)[8]) noexcept {
  constexpr std::uint64_t m1 = 0x00FF00FF00FF00FFull, m2 = 0x0000FFFF0000FFFFull, m4 = 0x00000000FFFFFFFFull;
  for (int i = 0; i < 8; i += 2) {
    const std::uint64_t t = ((a[i] >> 8) ^ a[i + 1]) & m1;
    a[i + 1] ^= t;
    a[i] ^= t << 8;
  }
  for (int i : {0, 1, 4, 5}) {
    const std::uint64_t t = ((a[i] >> 16) ^ a[i + 2]) & m2;
    a[i + 2] ^= t;
    a[i] ^= t << 16;
  }
  for (int i = 0; i < 4; ++i) {
    const std::uint64_t t = ((a[i] >> 32) ^ a[i + 4]) & m4;
    a[i + 4] ^= t;
    a[i] ^= t << 32;
  }
}

// dst[c][r] = src[r][c] over rows [r0, r1) and columns [c0, c1): whole
// 8 x 8 blocks as words, the ragged edges byte by byte.
void transpose_tile(const Matrix& src, const Matrix& dst, std::int64_t r0, std::int64_t r1, std::int64_t c0,
                    std::int64_t c1) {
  const auto* s = static_cast<const std::uint8_t*>(src.data());
  auto* d = static_cast<std::uint8_t*>(dst.data());
  std::int64_t r8 = r0 + (r1 - r0) / 8 * 8;
  const std::int64_t c8 = c0 + (c1 - c0) / 8 * 8;
  if (std::endian::native == std::endian::little) {
    for (std::int64_t r = r0; r < r8; r += 8) {
      for (std::int64_t c = c0; c < c8; c += 8) {
        std::uint64_t block[8];
        for (int i = 0; i < 8; ++i) std::memcpy(&block[i], s + (r + i) * src.row_stride() + c, 8);
        transpose8x8(block);
        for (int i = 0; i < 8; ++i) std::memcpy(d + (c + i) * dst.row_stride() + r, &block[i], 8);
      }
    }
  } else {
    r8 = r0;  // big-endian words hold bytes the other way round: bytes only
  }
  const auto bytes = [&](std::int64_t ra, std::int64_t rb, std::int64_t ca, std::int64_t cb) {
    for (std::int64_t c = ca; c < cb; ++c)
      for (std::int64_t r = ra; r < rb; ++r) d[c * dst.row_stride() + r] = s[r * src.row_stride() + c];
  };
  bytes(r0, r8, c8, c1);  // right edge of the word blocks
  bytes(r8, r1, c0, c1);  // bottom rows
}

}  // namespace

void transpose_codes(const Matrix& src, const Matrix& dst, unsigned threads) {
  // 64 x 64 byte tiles: a tile's 64 source rows and 64 destination rows
  // (4 KiB each way) stay in L1 while it is copied.
  constexpr std::int64_t kTile = 64;
  const std::int64_t tile_rows = (src.cols() + kTile - 1) / kTile;  // tiles down dst
  // Each chunk owns whole tiles of dst rows, so writes never share a line.
  parallel_for(static_cast<std::size_t>(tile_rows), static_cast<std::size_t>(kTile * src.rows()), threads,
               [&](std::size_t begin, std::size_t end) {
                 for (auto t = static_cast<std::int64_t>(begin); t < static_cast<std::int64_t>(end); ++t) {
                   const std::int64_t c0 = t * kTile, c1 = std::min(src.cols(), c0 + kTile);
                   for (std::int64_t r0 = 0; r0 < src.rows(); r0 += kTile)
                     transpose_tile(src, dst, r0, std::min(src.rows(), r0 + kTile), c0, c1);
                 }
               });
}

}  // namespace frugal::quant::ops::detail
