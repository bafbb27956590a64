#include "bucket_packing.hpp"

#include <algorithm>
#include <map>
#include <numeric>

namespace vendor {

std::vector<std::vector<int64_t>> pack_in_buckets(std::span<const int64_t> lengths, int64_t max_len,
                                                  int64_t max_per_pack, int64_t width) {
  std::vector<int64_t> order(lengths.size());
  std::iota(order.begin(), order.end(), int64_t{0});
  // Longest first; ties by index so the result does not depend on the sort.
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return lengths[a] > lengths[b]; });

  std::vector<std::vector<int64_t>> packs;
  std::vector<int64_t> room;                 // tokens left, per pack
  std::multimap<int64_t, std::size_t> open;  // room -> pack, this bucket's packs that can take more
  int64_t bucket = -1;
  for (const int64_t i : order) {
    const int64_t length = lengths[i];
    const int64_t b = (length - 1) / width;
    // Sorted by length, so buckets arrive one after the other: a new
    // bucket closes every pack of the previous one.
    if (b != bucket) {
      open.clear();
      bucket = b;
    }
    auto fit = open.lower_bound(length);  // the least room that still fits
    std::size_t p = 0;
    if (fit == open.end()) {
      p = packs.size();
      packs.emplace_back();
      room.push_back(max_len);
    } else {
      p = fit->second;
      open.erase(fit);
    }
    packs[p].push_back(i);
    room[p] -= length;
    const bool full = max_per_pack > 0 && static_cast<int64_t>(packs[p].size()) >= max_per_pack;
    if (room[p] > 0 && !full) open.emplace(room[p], p);
  }
  return packs;
}

}  // namespace vendor
