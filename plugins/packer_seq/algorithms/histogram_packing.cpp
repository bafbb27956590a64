#include "algorithms/histogram_packing.hpp"

#include <algorithm>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "algorithms/best_fit.hpp"
#include "algorithms/large_buffer.hpp"
#include "algorithms/occupancy_set.hpp"
#include "algorithms/order.hpp"
#include "algorithms/validate.hpp"

namespace frugal::packer {
namespace {

enum class Fit { worst, best };

struct Group {
  int64_t count = 0;     // packs in this group (0 once merged into a successor)
  std::size_t strategy;  // index into strategies
};

// A strategy (the lengths one pack holds, in placement order) is stored as
// its predecessor plus `repeat` copies of `len`: extending a group's
// strategy by one sequence then costs O(1), not a copy of the whole
// multiset. Copies made SPFHP quadratic in max_len (one length-1 sequence
// per step into the one open pack: strategies of 1, 2, ..., max_len items).
struct Strategy {
  static constexpr std::size_t kRoot = static_cast<std::size_t>(-1);
  std::size_t parent = kRoot;  // index into strategies, or kRoot
  int64_t len = 0;
  int64_t repeat = 0;
  int64_t size = 0;    // sequences in all, parents included
  int64_t tokens = 0;  // their total length
};

class HistogramPacker {
 public:
  HistogramPacker(const PackLimits& limits, Fit fit)
      : max_len_(limits.max_len),
        limit_(limits.max_per_pack == 0 ? std::numeric_limits<int64_t>::max() : limits.max_per_pack),
        fit_(fit),
        bucket_(static_cast<std::size_t>(limits.max_len) + 1),
        open_(static_cast<std::size_t>(limits.max_len) + 1) {}

  void place(int64_t len, int64_t remaining) {
    while (remaining > 0) {
      const std::size_t r = find(len);
      if (r == OccupancySet::npos) {
        const int64_t repeat = std::min({max_len_ / len, limit_, remaining});
        const int64_t count = remaining / repeat;
        add_strategy(Strategy::kRoot, len, repeat);
        add_group(strategies_.size() - 1, count, max_len_ - repeat * len);
        remaining -= count * repeat;
        continue;
      }
      auto& b = bucket_[r];
      const std::size_t gid = b.back();
      const int64_t residual = static_cast<int64_t>(r);
      const std::size_t base = groups_[gid].strategy;
      int64_t repeat = 1;
      if (fit_ == Fit::best) repeat = std::min({residual / len, limit_ - strategies_[base].size, remaining});
      const int64_t count = std::min(groups_[gid].count, remaining / repeat);
      if (groups_[gid].count > count) {
        groups_[gid].count -= count;
      } else {
        groups_[gid].count = 0;
        b.pop_back();
        if (b.empty()) open_.erase(r);
      }
      remaining -= count * repeat;
      add_strategy(base, len, repeat);
      add_group(strategies_.size() - 1, count, residual - repeat * len);
    }
  }

  // Hands out sequence indices: per length in decreasing order, ascending
  // index. Output sizes are known up front, so every array is written once,
  // front to back.
  PackResult finish(std::span<const int64_t> lengths, std::span<const int64_t> histogram) const {
    std::size_t packs = 0;
    for (const auto& g : groups_) packs += static_cast<std::size_t>(g.count);
    PackResult r = sized_result(packs, lengths.size());
    if (lengths.size() < std::numeric_limits<uint32_t>::max()) {
      hand_out<uint32_t>(lengths, histogram, r);
    } else {
      hand_out<uint64_t>(lengths, histogram, r);
    }
    return r;
  }

 private:
  template <class Id>
  void hand_out(std::span<const int64_t> lengths, std::span<const int64_t> histogram, PackResult& r) const {
    LargeBuffer<Id> order(lengths.size());
    decreasing_order_into(lengths, histogram, order.data());
    // next[len]: position in order of the next unused sequence of len.
    std::vector<std::size_t> next(histogram.size(), 0);
    std::size_t running = 0;
    for (std::size_t l = histogram.size(); l-- > 1;) {
      next[l] = running;
      running += static_cast<std::size_t>(histogram[l]);
    }
    int64_t* items = r.items.data();
    int64_t* offsets = r.offsets.data();
    int64_t* tokens = r.tokens.data();
    int64_t written = 0;
    std::vector<int64_t> pack;  // one strategy's lengths, at most max_len of them
    for (const auto& g : groups_) {
      if (g.count == 0) continue;
      const Strategy& s = strategies_[g.strategy];
      spell_out(g.strategy, pack);
      for (int64_t c = 0; c < g.count; ++c) {
        for (const int64_t len : pack) *items++ = static_cast<int64_t>(order[next[static_cast<std::size_t>(len)]++]);
        written += s.size;
        *++offsets = written;
        *tokens++ = s.tokens;
      }
    }
  }

  // The lengths of strategy `id` in placement order (root first).
  void spell_out(std::size_t id, std::vector<int64_t>& out) const {
    out.resize(static_cast<std::size_t>(strategies_[id].size));
    auto end = out.end();
    for (std::size_t at = id; at != Strategy::kRoot; at = strategies_[at].parent) {
      const Strategy& s = strategies_[at];
      end = std::fill_n(std::make_reverse_iterator(end), s.repeat, s.len).base();
    }
  }

  void add_strategy(std::size_t parent, int64_t len, int64_t repeat) {
    Strategy s{parent, len, repeat, repeat, repeat * len};
    if (parent != Strategy::kRoot) {
      s.size += strategies_[parent].size;
      s.tokens += strategies_[parent].tokens;
    }
    strategies_.push_back(s);
  }

  std::size_t find(int64_t len) const {
    if (fit_ == Fit::best) return open_.next_at_least(static_cast<std::size_t>(len));
    const std::size_t r = open_.largest();
    return r != OccupancySet::npos && static_cast<int64_t>(r) >= len ? r : OccupancySet::npos;
  }

  void add_group(std::size_t strategy, int64_t count, int64_t residual) {
    groups_.push_back(Group{count, strategy});
    const bool closed = residual == 0 || strategies_[strategy].size >= limit_;
    if (closed) return;
    bucket_[static_cast<std::size_t>(residual)].push_back(groups_.size() - 1);
    open_.insert(static_cast<std::size_t>(residual));
  }

  int64_t max_len_;
  int64_t limit_;
  Fit fit_;
  std::vector<Strategy> strategies_;
  std::vector<Group> groups_;
  std::vector<std::vector<std::size_t>> bucket_;  // by residual: open group ids
  OccupancySet open_;
};

PackResult histogram_pack(std::span<const int64_t> lengths, const PackLimits& limits, Fit fit, const char* name) {
  validate_packable(lengths, limits);
  if (limits.max_len > kMaxBucketedLen) {
    throw PackError("max_len " + std::to_string(limits.max_len) + " exceeds the " + name + " limit " +
                    std::to_string(kMaxBucketedLen));
  }
  const std::vector<int64_t> histogram = length_histogram(lengths, limits.max_len);
  HistogramPacker packer(limits, fit);
  for (std::size_t l = histogram.size(); l-- > 1;) {
    if (histogram[l] > 0) packer.place(static_cast<int64_t>(l), histogram[l]);
  }
  return packer.finish(lengths, histogram);
}

}  // namespace

PackResult spfhp(std::span<const int64_t> lengths, const PackLimits& limits) {
  return histogram_pack(lengths, limits, Fit::worst, "SPFHP");
}

PackResult lpfhp(std::span<const int64_t> lengths, const PackLimits& limits) {
  return histogram_pack(lengths, limits, Fit::best, "LPFHP");
}

}  // namespace frugal::packer
