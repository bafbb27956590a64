#include "algorithms/plan_builders.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "algorithms/length_pool.hpp"

namespace frugal::packer {
namespace {

int64_t slots_per_pack(const PackLimits& limits) {
  return limits.max_per_pack == 0 ? std::numeric_limits<int64_t>::max() : limits.max_per_pack;
}

// Takes pattern (sorted non-increasing, already taken once from pool) as
// many more times as the pool allows and records the group.
void add_with_repeats(LengthPool& pool, std::vector<int64_t>& pattern, PackPlan& plan) {
  std::sort(pattern.begin(), pattern.end(), std::greater<>());
  int64_t repeats = std::numeric_limits<int64_t>::max();
  for (std::size_t i = 0; i < pattern.size();) {
    std::size_t j = i;
    while (j < pattern.size() && pattern[j] == pattern[i]) ++j;
    repeats = std::min(repeats, pool.count(pattern[i]) / static_cast<int64_t>(j - i));
    i = j;
  }
  for (std::size_t i = 0; i < pattern.size();) {
    std::size_t j = i;
    while (j < pattern.size() && pattern[j] == pattern[i]) ++j;
    if (repeats > 0) pool.take(pattern[i], repeats * static_cast<int64_t>(j - i));
    i = j;
  }
  plan.add(pattern, 1 + repeats);
}

struct Pair {
  int64_t a = 0;  // a >= b; a == 0: no pair fits
  int64_t b = 0;
};

// The two sequences with the largest total <= room (ties: the larger a).
// Stops as soon as the pair closes room exactly or no larger total is
// possible (b <= a, so a total is at most 2a).
Pair best_pair(const LengthPool& pool, int64_t room) {
  Pair best;
  int64_t best_sum = 0;
  for (int64_t a = pool.largest_at_most(room - 1); a > 0 && 2 * a > best_sum; a = pool.largest_at_most(a - 1)) {
    int64_t b = pool.largest_at_most(std::min(a, room - a));
    if (b == a && pool.count(a) < 2) b = pool.largest_at_most(a - 1);
    if (b > 0 && a + b > best_sum) {
      best = {a, b};
      best_sum = a + b;
      if (best_sum == room) break;
    }
  }
  return best;
}

template <class Complete>
PackPlan build(std::span<const int64_t> histogram, const PackLimits& limits, Complete complete) {
  LengthPool pool(histogram);
  PackPlan plan;
  std::vector<int64_t> pattern;
  const int64_t slots = slots_per_pack(limits);
  for (int64_t first = pool.largest_at_most(limits.max_len); first > 0; first = pool.largest_at_most(limits.max_len)) {
    pattern.assign(1, first);
    pool.take(first, 1);
    complete(pool, pattern, limits.max_len - first, slots - 1);
    add_with_repeats(pool, pattern, plan);
  }
  return plan;
}

}  // namespace

PackPlan plan_first_fit(std::span<const int64_t> histogram, const PackLimits& limits) {
  return build(histogram, limits, [](LengthPool& pool, std::vector<int64_t>& pattern, int64_t room, int64_t slots) {
    for (; slots > 0; --slots) {
      const int64_t len = pool.largest_at_most(room);
      if (len == 0) return;
      pool.take(len, 1);
      pattern.push_back(len);
      room -= len;
    }
  });
}

PackPlan plan_min_slack(std::span<const int64_t> histogram, const PackLimits& limits, PairRule rule) {
  const auto complete = [rule](LengthPool& pool, std::vector<int64_t>& pattern, int64_t room, int64_t slots) {
    for (; slots > 0 && room > 0; --slots) {
      // The last two places; under least_room also any two that close the
      // pack exactly (count-first keeps places for more sequences).
      if (slots == 2 || (slots > 2 && rule == PairRule::least_room)) {
        const Pair pair = best_pair(pool, room);
        // The longest single sequence can leave less room than the best pair
        // (when it has no partner that fits); a tie goes to the pair.
        const bool pair_wins =
            pair.a > 0 && (rule == PairRule::any_pair_fits || pair.a + pair.b >= pool.largest_at_most(room));
        if (pair_wins && (slots == 2 || pair.a + pair.b == room)) {
          pool.take(pair.a, 1);
          pool.take(pair.b, 1);
          pattern.push_back(pair.a);
          pattern.push_back(pair.b);
          return;
        }
      }
      int64_t len = 0;
      if (rule == PairRule::any_pair_fits && slots > 2) {
        // Leave room for the shortest sequences in the other places, so the
        // pack can still be filled to max_per_pack.
        len = pool.largest_at_most(room - pool.shortest_total(slots - 1));
      }
      if (len == 0) len = pool.largest_at_most(room);
      if (len == 0) return;
      pool.take(len, 1);
      pattern.push_back(len);
      room -= len;
    }
  };
  return build(histogram, limits, complete);
}

}  // namespace frugal::packer
