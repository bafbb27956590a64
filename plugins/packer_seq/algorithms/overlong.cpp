#include "algorithms/overlong.hpp"

#include <string>

#include "algorithms/validate.hpp"

namespace frugal::packer {

NormalizedInput apply_overlong_policy(std::span<const int64_t> lengths, int64_t max_len, OverlongPolicy policy) {
  validate_limits(PackLimits{max_len, 0});
  validate_positive_lengths(lengths);
  NormalizedInput out;
  std::size_t overlong = 0;
  int64_t extra_pieces = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] <= max_len) continue;
    if (policy == OverlongPolicy::error) {
      throw PackError("sequence " + std::to_string(i) + " has length " + std::to_string(lengths[i]) + " > max_len " +
                      std::to_string(max_len) + " (overlong policy: error)");
    }
    ++overlong;
    extra_pieces += (lengths[i] + max_len - 1) / max_len - 1;
  }
  if (overlong == 0 || policy == OverlongPolicy::truncate) {
    out.lengths.assign(lengths.begin(), lengths.end());
    if (overlong != 0) {
      for (auto& len : out.lengths) len = len > max_len ? max_len : len;
    }
    return out;
  }
  // split
  const auto units = lengths.size() + static_cast<std::size_t>(extra_pieces);
  out.lengths.reserve(units);
  out.pieces.reserve(units);
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    const auto source = static_cast<int64_t>(i);
    for (int64_t offset = 0; offset < lengths[i]; offset += max_len) {
      const int64_t piece_len = lengths[i] - offset < max_len ? lengths[i] - offset : max_len;
      out.lengths.push_back(piece_len);
      out.pieces.push_back(Piece{source, offset, piece_len});
    }
  }
  return out;
}

}  // namespace frugal::packer
