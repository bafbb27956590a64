// SPFHP and LPFHP: pack-for-pack agreement with a reference that stores
// every strategy as a full copy (the algorithm as first written), and peak
// heap use linear in max_len. The binary replaces the global operator new
// to measure the peak, so it holds only these cases.
#include <catch2/catch.hpp>

#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <new>
#include <random>
#include <vector>

#include "algorithms/histogram_packing.hpp"
#include "algorithms/occupancy_set.hpp"
#include "algorithms/order.hpp"
#include "test_seed.hpp"

namespace {

std::atomic<std::size_t> g_live{0};
std::atomic<std::size_t> g_peak{0};

void* counted_alloc(std::size_t size) {
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  const std::size_t live = g_live += malloc_usable_size(p);
  std::size_t peak = g_peak.load();
  while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
  }
  return p;
}

void counted_free(void* p) noexcept {
  if (p == nullptr) return;
  g_live -= malloc_usable_size(p);
  std::free(p);
}

// Peak heap bytes allocated by `fn` above what was live when it started.
template <class Fn>
std::size_t peak_bytes_of(Fn&& fn) {
  const std::size_t base = g_live.load();
  g_peak = base;
  fn();
  return g_peak.load() - base;
}

}  // namespace

void* operator new(std::size_t size) { return counted_alloc(size); }
void* operator new[](std::size_t size) { return counted_alloc(size); }
void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_free(p); }

using namespace frugal::packer;

namespace {

// The histogram packer with each group's strategy held as a full copy of
// its lengths (O(max_len^2) memory in the worst case), otherwise the same
// rules: see histogram_packing.hpp.
PackResult reference_histogram_pack(std::span<const int64_t> lengths, const PackLimits& limits, bool best_fit) {
  const int64_t max_len = limits.max_len;
  const int64_t limit = limits.max_per_pack == 0 ? std::numeric_limits<int64_t>::max() : limits.max_per_pack;
  struct Group {
    int64_t count;
    std::size_t strategy;
  };
  std::vector<std::vector<int64_t>> strategies;
  std::vector<Group> groups;
  std::vector<std::vector<std::size_t>> bucket(static_cast<std::size_t>(max_len) + 1);
  OccupancySet open(static_cast<std::size_t>(max_len) + 1);
  const auto add_group = [&](std::size_t strategy, int64_t count, int64_t residual) {
    groups.push_back(Group{count, strategy});
    if (residual == 0 || static_cast<int64_t>(strategies[strategy].size()) >= limit) return;
    bucket[static_cast<std::size_t>(residual)].push_back(groups.size() - 1);
    open.insert(static_cast<std::size_t>(residual));
  };
  const std::vector<int64_t> histogram = length_histogram(lengths, max_len);
  for (std::size_t l = histogram.size(); l-- > 1;) {
    const auto len = static_cast<int64_t>(l);
    int64_t remaining = histogram[l];
    while (remaining > 0) {
      std::size_t r = OccupancySet::npos;
      if (best_fit) {
        r = open.next_at_least(l);
      } else if (const std::size_t largest = open.largest(); largest != OccupancySet::npos && largest >= l) {
        r = largest;
      }
      if (r == OccupancySet::npos) {
        const int64_t repeat = std::min({max_len / len, limit, remaining});
        const int64_t count = remaining / repeat;
        strategies.emplace_back(static_cast<std::size_t>(repeat), len);
        add_group(strategies.size() - 1, count, max_len - repeat * len);
        remaining -= count * repeat;
        continue;
      }
      auto& b = bucket[r];
      const std::size_t gid = b.back();
      const auto residual = static_cast<int64_t>(r);
      const auto& base = strategies[groups[gid].strategy];
      const int64_t repeat =
          best_fit ? std::min({residual / len, limit - static_cast<int64_t>(base.size()), remaining}) : 1;
      const int64_t count = std::min(groups[gid].count, remaining / repeat);
      std::vector<int64_t> next(base);
      next.insert(next.end(), static_cast<std::size_t>(repeat), len);
      if (groups[gid].count > count) {
        groups[gid].count -= count;
      } else {
        groups[gid].count = 0;
        b.pop_back();
        if (b.empty()) open.erase(r);
      }
      remaining -= count * repeat;
      strategies.push_back(std::move(next));
      add_group(strategies.size() - 1, count, residual - repeat * len);
    }
  }
  const std::vector<int64_t> order = decreasing_order(lengths, max_len);
  std::vector<std::size_t> next(histogram.size(), 0);
  std::size_t running = 0;
  for (std::size_t l = histogram.size(); l-- > 1;) {
    next[l] = running;
    running += static_cast<std::size_t>(histogram[l]);
  }
  PackResult result;
  for (const auto& g : groups) {
    for (int64_t c = 0; c < g.count; ++c) {
      int64_t tokens = 0;
      for (const int64_t len : strategies[g.strategy]) {
        result.items.push_back(order[next[static_cast<std::size_t>(len)]++]);
        tokens += len;
      }
      result.offsets.push_back(static_cast<int64_t>(result.items.size()));
      result.tokens.push_back(tokens);
    }
  }
  return result;
}

// A histogram of a few distinct lengths with skewed counts, in shuffled
// input order.
std::vector<int64_t> random_lengths(std::mt19937_64& rng, int64_t max_len) {
  std::vector<int64_t> lengths;
  const int distinct = std::uniform_int_distribution<int>(1, 8)(rng);
  for (int d = 0; d < distinct; ++d) {
    const int64_t len = std::uniform_int_distribution<int64_t>(1, max_len)(rng);
    const int64_t count = std::uniform_int_distribution<int>(0, 3)(rng) == 0
                              ? std::uniform_int_distribution<int64_t>(50, 400)(rng)
                              : std::uniform_int_distribution<int64_t>(1, 12)(rng);
    lengths.insert(lengths.end(), static_cast<std::size_t>(count), len);
  }
  std::shuffle(lengths.begin(), lengths.end(), rng);
  return lengths;
}

}  // namespace

TEST_CASE("SPFHP and LPFHP match the strategy-copying reference pack for pack", "[packer][histogram]") {
  const uint64_t seed = frugal_test::test_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 400; ++round) {
    const int64_t max_len = std::uniform_int_distribution<int64_t>(1, 96)(rng);
    const int64_t max_per_pack =
        std::uniform_int_distribution<int>(0, 2)(rng) == 0 ? std::uniform_int_distribution<int64_t>(1, 6)(rng) : 0;
    const std::vector<int64_t> lengths = random_lengths(rng, max_len);
    const PackLimits limits{max_len, max_per_pack, 0};
    CAPTURE(round, max_len, max_per_pack, lengths.size());
    REQUIRE(spfhp(lengths, limits) == reference_histogram_pack(lengths, limits, false));
    REQUIRE(lpfhp(lengths, limits) == reference_histogram_pack(lengths, limits, true));
  }
}

TEST_CASE("SPFHP and LPFHP heap use is linear in max_len, not quadratic", "[packer][histogram]") {
  // Four sequences of 71 leave one pack with 3812 free tokens at max_len
  // 4096; length-1 sequences then go in one at a time (worst fit), each
  // extending that pack's strategy. Copying strategies held 1 + 2 + ... +
  // 3812 lengths (117 MB peak with vector growth). Linked, the strategies cost a few bytes each.
  const int64_t max_len = 4096;
  std::vector<int64_t> lengths(4, 71);
  lengths.insert(lengths.end(), 4400, 1);
  const PackLimits limits{max_len, 0, 0};
  for (const auto algo : {&spfhp, &lpfhp}) {
    PackResult r;
    const std::size_t peak = peak_bytes_of([&] { r = algo(lengths, limits); });
    CAPTURE(peak);
    REQUIRE(r.packs() == 2);
    REQUIRE(r.tokens[0] + r.tokens[1] == 4 * 71 + 4400);
    REQUIRE(peak < (std::size_t{2} << 20));
  }
}

TEST_CASE("SPFHP on the issue's histogram: 1 x 35460 and 71 x 4 at max_len 32768", "[packer][histogram]") {
  std::vector<int64_t> lengths(35460, 1);
  lengths.insert(lengths.end(), 4, 71);
  const PackLimits limits{32768, 0, 0};
  PackResult r;
  const std::size_t peak = peak_bytes_of([&] { r = spfhp(lengths, limits); });
  CAPTURE(peak);
  REQUIRE(r.packs() == 2);                 // ceil(35744 / 32768)
  REQUIRE(peak < (std::size_t{8} << 20));  // was 4.5 GB
}
