#include "packer/pack_bounds.hpp"

#include <algorithm>
#include <vector>

namespace frugal::pack {
namespace {

struct Bin {
  int64_t length;
  int64_t count;
};

int64_t ceil_div(int64_t a, int64_t b) { return a <= 0 ? 0 : (a + b - 1) / b; }

// Distinct lengths, ascending, with their counts.
std::vector<Bin> distinct_lengths(std::span<const int64_t> lengths, int64_t max_len) {
  std::vector<Bin> bins;
  const auto n = static_cast<int64_t>(lengths.size());
  if (max_len <= std::max<int64_t>(int64_t{1} << 22, 4 * n)) {
    std::vector<int64_t> histogram(static_cast<std::size_t>(max_len) + 1, 0);
    for (const int64_t len : lengths) ++histogram[static_cast<std::size_t>(len)];
    for (int64_t l = 1; l <= max_len; ++l)
      if (histogram[static_cast<std::size_t>(l)] != 0) bins.push_back({l, histogram[static_cast<std::size_t>(l)]});
    return bins;
  }
  std::vector<int64_t> sorted(lengths.begin(), lengths.end());
  std::sort(sorted.begin(), sorted.end());
  for (const int64_t len : sorted) {
    if (bins.empty() || bins.back().length != len) bins.push_back({len, 0});
    ++bins.back().count;
  }
  return bins;
}

}  // namespace

int64_t pack_lower_bound(std::span<const int64_t> lengths, int64_t max_len, int64_t max_per_pack) {
  const std::vector<Bin> bins = distinct_lengths(lengths, max_len);
  // Prefix sums over the bins: units and tokens of the first i bins.
  std::vector<int64_t> units(bins.size() + 1, 0);
  std::vector<int64_t> tokens(bins.size() + 1, 0);
  for (std::size_t i = 0; i < bins.size(); ++i) {
    units[i + 1] = units[i] + bins[i].count;
    tokens[i + 1] = tokens[i] + bins[i].count * bins[i].length;
  }
  // Number of bins with length <= l.
  const auto upto = [&](int64_t l) {
    return static_cast<std::size_t>(
        std::upper_bound(bins.begin(), bins.end(), l, [](int64_t v, const Bin& b) { return v < b.length; }) -
        bins.begin());
  };
  const int64_t n = units.back();
  int64_t bound = ceil_div(tokens.back(), max_len);
  if (max_per_pack > 0) bound = std::max(bound, ceil_div(n, max_per_pack));

  const int64_t half = max_len / 2;
  const std::size_t upto_half = upto(half);
  // Thresholds: 1, and every present length up to half (others add nothing).
  std::vector<int64_t> thresholds{1};
  for (std::size_t i = 0; i < upto_half; ++i) thresholds.push_back(bins[i].length);
  for (const int64_t k : thresholds) {
    if (k > half) break;
    const std::size_t upto_long = upto(max_len - k);
    const std::size_t below_k = upto(k - 1);
    const int64_t big = n - units[upto_long];                 // > max_len - k: nothing else fits
    const int64_t mid = units[upto_long] - units[upto_half];  // (half, max_len - k]: one per pack
    const int64_t mid_room = mid * max_len - (tokens[upto_long] - tokens[upto_half]);
    const int64_t small = units[upto_half] - units[below_k];  // [k, half]
    const int64_t small_tokens = tokens[upto_half] - tokens[below_k];
    int64_t extra = ceil_div(small_tokens - mid_room, max_len);
    if (max_per_pack > 0) extra = std::max(extra, ceil_div(small - (max_per_pack - 1) * mid, max_per_pack));
    bound = std::max(bound, big + mid + extra);
  }

  // With a limit k: a unit longer than half has a pack of its own, which
  // takes at most min(k - 1, m) of the short units (<= half), m being how
  // many of the shortest ones fit its leftover room. The short units beyond
  // all those places need packs of at most k.
  if (max_per_pack > 0) {
    const int64_t shorts = units[upto_half];
    // How many of the shortest short units fit in `room` tokens.
    const auto fitting = [&](int64_t room) {
      const auto end = tokens.begin() + static_cast<std::ptrdiff_t>(upto_half) + 1;
      const auto i = static_cast<std::size_t>(std::upper_bound(tokens.begin(), end, room) - tokens.begin()) - 1;
      if (i >= upto_half) return shorts;
      return units[i] + (room - tokens[i]) / bins[i].length;  // part of bin i; fewer than its count
    };
    int64_t places = 0;
    for (std::size_t i = upto_half; i < bins.size(); ++i)
      places += bins[i].count * std::min(max_per_pack - 1, fitting(max_len - bins[i].length));
    bound = std::max(bound, (n - shorts) + ceil_div(shorts - places, max_per_pack));
  }
  return bound;
}

}  // namespace frugal::pack
