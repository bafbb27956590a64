// First-fit and best-fit decreasing, placing whole runs of equal length at a
// time. Exactly the sequence-by-sequence algorithms (naive first / best fit
// over decreasing_order()), but per pack rather than per sequence:
//
// In a run of length L, the chosen pack (residual r) stays the choice until
// it has k = min(r / L, max_per_pack - members, remaining) copies: after each
// copy it is still the lowest-numbered pack that fits (first fit; packs
// before it did not fit and have not changed) and the unique tightest one
// (best fit; buckets [L, r) were empty, and now hold only this pack). So
// each step takes a pack from a residual bucket (residual_buckets.hpp) and
// gives it k copies; packs with residual < L are never looked at.
//  * best fit: the smallest non-empty bucket >= L (OccupancySet), drained in
//    ascending pack number;
//  * first fit: the lowest pack number over all buckets >= L (a MinTree over
//    bucket fronts), draining one bucket while its front stays below the
//    runner-up.
// When no bucket fits, the rest of the run opens new packs in bulk.
// Placements are recorded per sorted position, then turned into the
// PackResult with one counting pass. Time O(n + max_len log max_len + sorts
// at activation), memory O(n + max_len).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "algorithms/large_buffer.hpp"
#include "algorithms/min_tree.hpp"
#include "algorithms/occupancy_set.hpp"
#include "algorithms/order.hpp"
#include "algorithms/residual_buckets.hpp"
#include "algorithms/types.hpp"

namespace frugal::packer {

enum class FitRule { first, best };

// Id: pack and sequence numbers (uint32_t unless n does not fit). Requires
// lengths validated and max_len <= kMaxBucketedLen.
template <class Id, FitRule kRule>
class DecreasingFit {
 public:
  DecreasingFit(std::span<const int64_t> lengths, const PackLimits& limits)
      : lengths_(lengths),
        max_len_(static_cast<std::size_t>(limits.max_len)),
        cap_(limits.max_per_pack == 0 ? std::numeric_limits<std::size_t>::max()
                                      : static_cast<std::size_t>(limits.max_per_pack)),
        pack_of_(lengths.size()),
        fill_(2 * lengths.size()),
        buckets_(max_len_),
        open_(max_len_ + 1),
        fronts_(kRule == FitRule::first ? max_len_ + 1 : 1) {}

  PackResult run() {
    const std::vector<int64_t> histogram = length_histogram(lengths_, static_cast<int64_t>(max_len_));
    std::size_t previous = max_len_ + 1;
    for (std::size_t len = max_len_; len >= 1; --len) {
      if (histogram[len] == 0) continue;
      activate(len, previous);
      previous = len;
      auto count = static_cast<std::size_t>(histogram[len]);
      if constexpr (kRule == FitRule::first) {
        first_fit_run(len, count);
      } else {
        best_fit_run(len, count);
      }
    }
    return assemble(histogram);
  }

 private:
  static constexpr Id kNone = std::numeric_limits<Id>::max();

  // Buckets in [len, previous) become eligible: sort them once.
  void activate(std::size_t len, std::size_t previous) {
    for (std::size_t r = open_.next_at_least(len); r != OccupancySet::npos && r < previous;
         r = open_.next_at_least(r + 1)) {
      buckets_.activate(r);
      if constexpr (kRule == FitRule::first) fronts_.set(r, buckets_.front(r));
    }
  }

  void first_fit_run(std::size_t len, std::size_t& count) {
    while (count > 0) {
      const auto [r, front] = fronts_.min_from(len);
      if (r == MinTree<Id>::npos) return open_new(len, count);
      fronts_.set(r, kNone);
      const Id runner_up = fronts_.min_from(len).second;
      do {
        const Id p = buckets_.front(r);
        buckets_.pop(r);
        place(p, r, len, count);
      } while (count > 0 && !buckets_.empty(r) && buckets_.front(r) < runner_up);
      if (buckets_.empty(r)) {
        open_.erase(r);
      } else {
        fronts_.set(r, buckets_.front(r));
      }
    }
  }

  void best_fit_run(std::size_t len, std::size_t& count) {
    while (count > 0) {
      const std::size_t r = open_.next_at_least(len);
      if (r == OccupancySet::npos) return open_new(len, count);
      while (count > 0 && !buckets_.empty(r)) {
        const Id p = buckets_.front(r);
        buckets_.pop(r);
        place(p, r, len, count);
      }
      if (buckets_.empty(r)) open_.erase(r);
    }
  }

  // Pack p (residual r, just taken from its bucket) gets its copies of len.
  void place(Id p, std::size_t r, std::size_t len, std::size_t& count) {
    Id& members = fill_[2 * std::size_t{p}];
    const std::size_t k = std::min({r / len, cap_ - members, count});
    record(p, k);
    members = static_cast<Id>(members + k);
    fill_[2 * std::size_t{p} + 1] = static_cast<Id>(max_len_ - r + k * len);
    count -= k;
    const std::size_t residual = r - k * len;
    if (residual > 0 && members < cap_) reinsert(p, residual, len);
  }

  // The rest of the run goes into new packs, max_len / len copies each.
  void open_new(std::size_t len, std::size_t& count) {
    const std::size_t per = std::min(max_len_ / len, cap_);
    const std::size_t full = count / per;
    const std::size_t rest = count % per;
    const auto first = static_cast<Id>(packs_);
    for (std::size_t j = 0; j < full; ++j) {
      set_fill(packs_ + j, per, per * len);
      record(static_cast<Id>(packs_ + j), per);
    }
    packs_ += full;
    const std::size_t residual = max_len_ - per * len;  // < len unless per == cap_
    if (full > 0 && residual > 0 && per < cap_) {
      buckets_.append_run(residual, first, full);
      open_.insert(residual);
    }
    if (rest > 0) {
      const auto p = static_cast<Id>(packs_++);
      set_fill(p, rest, rest * len);
      record(p, rest);
      reinsert(p, max_len_ - rest * len, len);  // residual >= len, rest < cap_
    }
    count = 0;
  }

  // Buckets >= len are active (see residual_buckets.hpp); only the pack that
  // ends a run lands there.
  void reinsert(Id p, std::size_t residual, std::size_t len) {
    if (residual < len) {
      buckets_.append(residual, p);
    } else {
      buckets_.insert_sorted(residual, p);
      if constexpr (kRule == FitRule::first) fronts_.set(residual, buckets_.front(residual));
    }
    open_.insert(residual);
  }

  void set_fill(std::size_t p, std::size_t members, std::size_t tokens) {
    fill_[2 * p] = static_cast<Id>(members);
    fill_[2 * p + 1] = static_cast<Id>(tokens);
  }

  void record(Id p, std::size_t k) {
    for (std::size_t j = 0; j < k; ++j) pack_of_[placed_ + j] = p;
    placed_ += k;
  }

  // Pack p holds the sequences at the sorted positions recorded for it, in
  // position order; offsets[p + 1] serves as p's write cursor.
  PackResult assemble(std::span<const int64_t> histogram) {
    const std::size_t n = lengths_.size();
    PackResult result;
    reserve_large(result.offsets, packs_ + 1);
    reserve_large(result.tokens, packs_);
    reserve_large(result.items, n);
    result.offsets.resize(packs_ + 1);
    result.tokens.resize(packs_);
    int64_t start = 0;
    for (std::size_t p = 0; p < packs_; ++p) {
      result.offsets[p + 1] = start;
      start += static_cast<int64_t>(fill_[2 * p]);
      result.tokens[p] = static_cast<int64_t>(fill_[2 * p + 1]);
    }
    // The fill table is spent: its 2 n slots (already faulted in up to
    // 2 * packs) take the sorted order.
    Id* const order = fill_.data();
    decreasing_order_into(lengths_, histogram, order);
    result.items.resize(n);
    int64_t* const offsets = result.offsets.data();
    int64_t* const items = result.items.data();
    for (std::size_t k = 0; k < n; ++k) {
      items[offsets[static_cast<std::size_t>(pack_of_[k]) + 1]++] = static_cast<int64_t>(order[k]);
    }
    return result;
  }

  std::span<const int64_t> lengths_;
  std::size_t max_len_;
  std::size_t cap_;
  LargeBuffer<Id> pack_of_;  // by sorted position
  LargeBuffer<Id> fill_;     // [2p] members, [2p + 1] tokens of pack p (tokens <= max_len)
  std::size_t packs_ = 0;
  std::size_t placed_ = 0;
  ResidualBuckets<Id> buckets_;
  OccupancySet open_;   // non-empty buckets
  MinTree<Id> fronts_;  // first fit: each active bucket's front
};

}  // namespace frugal::packer
