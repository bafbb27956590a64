#include "algorithms/bounds.hpp"

#include <algorithm>
#include <vector>

namespace frugal::packer {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return a <= 0 ? 0 : (a + b - 1) / b; }

}  // namespace

int64_t pack_lower_bound(std::span<const int64_t> histogram, const PackLimits& limits) {
  const int64_t cap = limits.max_len;
  const int64_t limit = limits.max_per_pack;
  // count_le[l] / tokens_le[l]: sequences of length <= l and their tokens.
  std::vector<int64_t> count_le(histogram.size(), 0);
  std::vector<int64_t> tokens_le(histogram.size(), 0);
  for (std::size_t l = 1; l < histogram.size(); ++l) {
    count_le[l] = count_le[l - 1] + histogram[l];
    tokens_le[l] = tokens_le[l - 1] + histogram[l] * static_cast<int64_t>(l);
  }
  const int64_t n = count_le.back();
  const int64_t tokens = tokens_le.back();
  int64_t bound = ceil_div(tokens, cap);
  if (limit > 0) bound = std::max(bound, ceil_div(n, limit));

  const auto at = [](const std::vector<int64_t>& v, int64_t l) { return v[static_cast<std::size_t>(l)]; };
  const int64_t half = cap / 2;  // sequences of length <= half may share a pack
  for (int64_t k = 1; k <= half; ++k) {
    // Only thresholds equal to a present length can raise the bound.
    if (k > 1 && histogram[static_cast<std::size_t>(k)] == 0) continue;
    const int64_t j1 = n - at(count_le, cap - k);
    const int64_t j2 = at(count_le, cap - k) - at(count_le, half);
    const int64_t j2_room = j2 * cap - (at(tokens_le, cap - k) - at(tokens_le, half));
    const int64_t j3 = at(count_le, half) - at(count_le, k - 1);
    const int64_t j3_tokens = at(tokens_le, half) - at(tokens_le, k - 1);
    int64_t extra = ceil_div(j3_tokens - j2_room, cap);
    if (limit > 0) extra = std::max(extra, ceil_div(j3 - (limit - 1) * j2, limit));
    bound = std::max(bound, j1 + j2 + extra);
  }

  // With a limit: each sequence longer than half sits in a pack of its own
  // that takes at most min(limit - 1, m) shorter ones, m = how many of the
  // shortest sequences (<= half) fit its leftover room; the rest of the
  // short ones need packs of at most `limit`.
  if (limit > 0) {
    const int64_t shorts = at(count_le, half);
    const auto fitting = [&](int64_t room) {
      // Largest l <= half whose shortest-first prefix fits: tokens_le is
      // non-decreasing, and the next present length is l + 1 (else l+1 fits too).
      const auto end = tokens_le.begin() + half + 1;
      const auto l = (std::upper_bound(tokens_le.begin(), end, room) - tokens_le.begin()) - 1;
      if (l >= half) return shorts;
      return at(count_le, l) + (room - at(tokens_le, l)) / (l + 1);
    };
    int64_t places = 0;
    for (int64_t l = half + 1; l <= cap; ++l) {
      const int64_t c = histogram[static_cast<std::size_t>(l)];
      if (c != 0) places += c * std::min(limit - 1, fitting(cap - l));
    }
    bound = std::max(bound, (n - shorts) + ceil_div(shorts - places, limit));
  }
  return bound;
}

}  // namespace frugal::packer
