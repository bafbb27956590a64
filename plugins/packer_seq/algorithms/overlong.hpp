// The overlong policy: what happens to sequences longer than max_len before
// packing. Nothing is ever dropped: error throws, truncate clips the length,
// split cuts the sequence into ceil(len / max_len) pieces.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/types.hpp"

namespace frugal::packer {

// A packable unit: tokens [offset, offset + length) of input sequence source.
struct Piece {
  int64_t source = 0;
  int64_t offset = 0;
  int64_t length = 0;
  friend bool operator==(const Piece&, const Piece&) = default;
};

// The lengths the algorithms see. pieces is empty when unit i is exactly
// input sequence i (no split happened), possibly truncated: then piece(i) is
// {i, 0, lengths[i]}.
struct NormalizedInput {
  std::vector<int64_t> lengths;
  std::vector<Piece> pieces;

  [[nodiscard]] Piece piece(std::size_t unit) const {
    if (!pieces.empty()) return pieces.at(unit);
    return Piece{static_cast<int64_t>(unit), 0, lengths.at(unit)};
  }
};

// Validates the lengths (non-empty, all > 0) and max_len (> 0) first.
[[nodiscard]] NormalizedInput apply_overlong_policy(std::span<const int64_t> lengths, int64_t max_len,
                                                    OverlongPolicy policy);

}  // namespace frugal::packer
