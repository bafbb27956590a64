// The "refined" packer and the "best" selector: validity and determinism
// over random length distributions, never more packs than first-fit
// decreasing (and, on these distributions, than any greedy algorithm),
// strict improvement on hand-checked cases where greedy leaves a gap, the
// lower bound against exhaustive search on tiny inputs, and best's choice.
// A hidden [.][timing] case prints informal 16M timings.
#include <catch2/catch.hpp>

#include "packer_test_support.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "algorithms/best_fit.hpp"
#include "algorithms/best_of.hpp"
#include "algorithms/bounds.hpp"
#include "algorithms/first_fit.hpp"
#include "algorithms/histogram_packing.hpp"
#include "algorithms/order.hpp"
#include "algorithms/pack_plan.hpp"
#include "algorithms/packer.hpp"
#include "algorithms/plan_builders.hpp"
#include "algorithms/refine.hpp"
#include "algorithms/stats.hpp"

using namespace frugal::packer;
using namespace frugal::packer::test;

namespace {

const Algorithm kGreedy[] = {Algorithm::first_fit_decreasing, Algorithm::best_fit_decreasing, Algorithm::spfhp,
                             Algorithm::lpfhp};

std::size_t fewest_greedy_packs(std::span<const int64_t> lengths, const PackLimits& limits) {
  std::size_t fewest = SIZE_MAX;
  for (const Algorithm a : kGreedy) fewest = std::min(fewest, run_algorithm(a, lengths, limits).packs());
  return fewest;
}

// The optimum by exhaustive search (tiny inputs only): each sequence, longest
// first, into an existing pack with room or one new pack.
int64_t optimal_packs(std::vector<int64_t> lengths, const PackLimits& limits) {
  std::sort(lengths.begin(), lengths.end(), std::greater<>());
  std::vector<int64_t> room;
  std::vector<int64_t> size;
  auto best = static_cast<int64_t>(lengths.size());
  std::function<void(std::size_t)> place = [&](std::size_t k) {
    if (static_cast<int64_t>(room.size()) >= best) return;
    if (k == lengths.size()) {
      best = static_cast<int64_t>(room.size());
      return;
    }
    for (std::size_t p = 0; p < room.size(); ++p) {
      if (room[p] < lengths[k] || (limits.max_per_pack > 0 && size[p] >= limits.max_per_pack)) continue;
      room[p] -= lengths[k];
      ++size[p];
      place(k + 1);
      room[p] += lengths[k];
      --size[p];
    }
    room.push_back(limits.max_len - lengths[k]);
    size.push_back(1);
    place(k + 1);
    room.pop_back();
    size.pop_back();
  };
  place(0);
  return best;
}

int64_t bound_of(std::span<const int64_t> lengths, const PackLimits& limits) {
  return pack_lower_bound(length_histogram(lengths, limits.max_len), limits);
}

}  // namespace

TEST_CASE("refined packs every distribution validly, deterministically, never worse than greedy", "[packer]") {
  for (const Dist d : kDists) {
    for (const int64_t max_len : {int64_t{64}, int64_t{512}, int64_t{2048}}) {
      for (const int64_t per_pack : {int64_t{0}, int64_t{2}, int64_t{3}, int64_t{5}}) {
        for (const std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{300}, std::size_t{4000}}) {
          INFO(dist_name(d) << " max_len=" << max_len << " max_per_pack=" << per_pack << " n=" << n);
          const auto lengths = make_lengths(d, n, max_len, 77 + n);
          const PackLimits limits{max_len, per_pack, 11};
          const PackResult r = refined(lengths, limits);
          check_valid(r, lengths, limits);
          REQUIRE(run_algorithm(Algorithm::refined, lengths, limits) == r);
          // No random choices: the seed does not matter.
          REQUIRE(refined(lengths, PackLimits{max_len, per_pack, 12345}) == r);
          // Guaranteed: first-fit decreasing is one of the plans it keeps.
          REQUIRE(r.packs() <= first_fit_decreasing(lengths, limits).packs());
          if (n >= 300) REQUIRE(r.packs() <= fewest_greedy_packs(lengths, limits));
        }
      }
    }
  }
}

TEST_CASE("refined closes the gap greedy leaves with max_per_pack on skewed lengths", "[packer]") {
  // Lognormal and short-heavy lengths with 3 per pack: every greedy
  // algorithm strands short sequences in packs of one or two.
  for (const Dist d : {Dist::lognormal_tail, Dist::short_heavy}) {
    INFO(dist_name(d));
    const auto lengths = make_lengths(d, 30000, 512, 3);
    const PackLimits limits{512, 3, 0};
    const auto r = refined(lengths, limits);
    const auto s = compute_stats(r, lengths, limits);
    const auto greedy = static_cast<int64_t>(fewest_greedy_packs(lengths, limits));
    REQUIRE(s.packs < greedy - greedy / 100);  // at least 1% fewer packs
    REQUIRE(static_cast<double>(s.packs) <= 1.001 * static_cast<double>(s.lower_bound_tight));
  }
}

TEST_CASE("refined beats every greedy algorithm on a hand-checked case", "[packer]") {
  SECTION("three per pack: 4 4 4 and six 3s, max_len 10") {
    // Greedy pairs the 4s ({4,4} leaves room 2 that no 3 fits) and ends with
    // {4,4} {4,3,3} {3,3,3} {3}: 4 packs. 30 tokens need 3 packs of 10, and
    // {4,3,3} three times is exactly that.
    const std::vector<int64_t> lengths{4, 4, 4, 3, 3, 3, 3, 3, 3};
    const PackLimits limits{10, 3, 0};
    for (const Algorithm a : kGreedy) {
      INFO(algorithm_name(a));
      REQUIRE(run_algorithm(a, lengths, limits).packs() == 4);
    }
    const auto r = refined(lengths, limits);
    REQUIRE(r.nested() == std::vector<std::vector<int64_t>>{{0, 3, 4}, {1, 5, 6}, {2, 7, 8}});
    REQUIRE(r.tokens == std::vector<int64_t>{10, 10, 10});
    REQUIRE(compute_stats(r, lengths, limits).lower_bound_tight == 3);
  }
  SECTION("unlimited: 6 5 3 3 3 2 2, max_len 12") {
    // First fit decreasing: {6,5} (room 1), {3,3,3,2} (room 1), {2}: 3 packs.
    // 24 tokens fit 2 packs exactly: {6,3,3} and {5,3,2,2}.
    const std::vector<int64_t> lengths{6, 5, 3, 3, 3, 2, 2};
    const PackLimits limits{12, 0, 0};
    REQUIRE(fewest_greedy_packs(lengths, limits) == 3);
    const auto r = refined(lengths, limits);
    check_valid(r, lengths, limits);
    REQUIRE(r.packs() == 2);
    REQUIRE(r.tokens == std::vector<int64_t>{12, 12});
  }
  SECTION("count-first: three per pack, 7 6 3 1 1 1, max_len 10") {
    // Six sequences need 2 packs. Least room (and FFD, BFD, LPFHP) closes
    // {7,3} exactly, then {6,1,1} and strands {1}: 3 packs. Count-first gives
    // the 7 a pair instead: {7,1,1} {6,3,1}.
    const std::vector<int64_t> lengths{1, 7, 3, 1, 1, 6};
    const PackLimits limits{10, 3, 0};
    for (const Algorithm a : {Algorithm::first_fit_decreasing, Algorithm::best_fit_decreasing, Algorithm::lpfhp}) {
      INFO(algorithm_name(a));
      REQUIRE(run_algorithm(a, lengths, limits).packs() == 3);
    }
    const auto histogram = length_histogram(lengths, 10);
    REQUIRE(plan_min_slack(histogram, limits, PairRule::least_room).packs() == 3);
    REQUIRE(plan_min_slack(histogram, limits, PairRule::any_pair_fits).packs() == 2);
    const auto r = refined(lengths, limits);
    REQUIRE(r.nested() == std::vector<std::vector<int64_t>>{{1, 0, 3}, {5, 2, 4}});
  }
}

TEST_CASE("plan_first_fit has first-fit decreasing's pack count", "[packer]") {
  for (const Dist d : kDists) {
    for (const int64_t per_pack : {int64_t{0}, int64_t{3}}) {
      INFO(dist_name(d) << " max_per_pack=" << per_pack);
      const auto lengths = make_lengths(d, 5000, 512, 21);
      const PackLimits limits{512, per_pack, 0};
      const PackPlan plan = plan_first_fit(length_histogram(lengths, 512), limits);
      REQUIRE(plan.packs() == static_cast<int64_t>(first_fit_decreasing(lengths, limits).packs()));
      check_valid(materialize(plan, lengths, 512), lengths, limits);
    }
  }
}

TEST_CASE("lower bound and refined against exhaustive search; L2 and its count analogue", "[packer]") {
  SECTION("L2 beats ceil(tokens / max_len)") {
    // Three 7s need their own packs and no 4 fits beside them: 3 + 2 = 5,
    // while ceil(33 / 10) = 4.
    const std::vector<int64_t> lengths{7, 7, 7, 4, 4, 4};
    REQUIRE(bound_of(lengths, {10, 0, 0}) == 5);
    REQUIRE(compute_stats(refined(lengths, {10, 0, 0}), lengths, {10, 0, 0}).lower_bound_tight == 5);
    REQUIRE(refined(lengths, {10, 0, 0}).packs() == 5);
  }
  SECTION("the count analogue beats ceil(n / max_per_pack)") {
    // Three full-length 10s, six 1s, 3 per pack: 3 + ceil(6 / 3) = 5 while
    // ceil(36 / 10) = 4 and ceil(9 / 3) = 3.
    std::vector<int64_t> lengths{10, 10, 10};
    lengths.insert(lengths.end(), 6, 1);
    REQUIRE(bound_of(lengths, {10, 3, 0}) == 5);
    REQUIRE(refined(lengths, {10, 3, 0}).packs() == 5);
  }
  SECTION("the per-long-pack count bound beats both when long sequences leave little room") {
    // Three 95s (room 5 each: one 4 fits, two do not) and twelve 4s, 3 per
    // pack: 3 + ceil((12 - 3) / 3) = 6, while the token bound says 4, the
    // count bound 5, and L2's count analogue 3 + ceil((12 - 2 * 3) / 3) = 5.
    std::vector<int64_t> lengths{95, 95, 95};
    lengths.insert(lengths.end(), 12, 4);
    const PackLimits limits{100, 3, 0};
    REQUIRE(bound_of(lengths, limits) == 6);
    REQUIRE(optimal_packs(lengths, limits) == 6);
    REQUIRE(refined(lengths, limits).packs() == 6);
  }
  SECTION("never above the optimum on tiny random inputs") {
    std::mt19937_64 rng(2024);
    for (int trial = 0; trial < 300; ++trial) {
      const int64_t max_len = 6 + static_cast<int64_t>(rng() % 15);
      const int64_t per_pack = static_cast<int64_t>(rng() % 4);  // 0 = unlimited
      std::vector<int64_t> lengths(2 + rng() % 7);
      for (auto& len : lengths) len = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(max_len));
      const PackLimits limits{max_len, per_pack, 0};
      const int64_t opt = optimal_packs(lengths, limits);
      INFO("trial " << trial << " max_len=" << max_len << " max_per_pack=" << per_pack);
      REQUIRE(bound_of(lengths, limits) <= opt);
      const auto packs = static_cast<int64_t>(refined(lengths, limits).packs());
      REQUIRE(packs >= opt);
      // Two per pack: the longest with the longest partner that fits is
      // optimal (an exchange argument), and that is what refined does.
      if (per_pack <= 2 && per_pack > 0) REQUIRE(packs == opt);
    }
  }
}

TEST_CASE("best keeps the fewest packs, never below BFD, and names its choice", "[packer]") {
  for (const Dist d : kDists) {
    for (const int64_t per_pack : {int64_t{0}, int64_t{3}}) {
      for (const std::size_t n : {std::size_t{5}, std::size_t{2000}}) {
        INFO(dist_name(d) << " max_per_pack=" << per_pack << " n=" << n);
        const auto lengths = make_lengths(d, n, 512, 5 + n);
        const PackLimits limits{512, per_pack, 0};
        Algorithm chosen = Algorithm::best;
        const PackResult r = best_of(lengths, limits, &chosen);
        check_valid(r, lengths, limits);
        REQUIRE(run_algorithm(Algorithm::best, lengths, limits) == r);
        const auto candidates = best_candidates();
        REQUIRE(std::find(candidates.begin(), candidates.end(), chosen) != candidates.end());
        REQUIRE(run_algorithm(chosen, lengths, limits) == r);
        for (const Algorithm a : candidates) {
          INFO(algorithm_name(a));
          REQUIRE(r.packs() <= run_algorithm(a, lengths, limits).packs());
        }
        const auto bfd = compute_stats(best_fit_decreasing(lengths, limits), lengths, limits);
        REQUIRE(compute_stats(r, lengths, limits).efficiency >= bfd.efficiency);
      }
    }
  }
}

TEST_CASE("best: the first candidate with the fewest packs wins", "[packer]") {
  Algorithm chosen = Algorithm::best;
  SECTION("refined when it reaches the bound") {
    const std::vector<int64_t> lengths{4, 4, 4, 3, 3, 3, 3, 3, 3};
    REQUIRE(best_of(lengths, {10, 3, 0}, &chosen).packs() == 3);
    REQUIRE(chosen == Algorithm::refined);
  }
  SECTION("a greedy algorithm when it has strictly fewer packs") {
    // A uniform case where refined is one pack behind the best greedy one.
    const auto lengths = make_lengths(Dist::uniform, 5000, 64, 8000);
    const PackLimits limits{64, 0, 0};
    const auto greedy = fewest_greedy_packs(lengths, limits);
    REQUIRE(refined(lengths, limits).packs() == greedy + 1);
    REQUIRE(best_of(lengths, limits, &chosen).packs() == greedy);
    REQUIRE(chosen != Algorithm::refined);
  }
  SECTION("only first-fit decreasing above the bucketed limit") {
    const std::vector<int64_t> lengths{3, kMaxBucketedLen + 5};
    REQUIRE(best_of(lengths, {kMaxBucketedLen + 8, 0, 0}, &chosen).packs() == 1);
    REQUIRE(chosen == Algorithm::first_fit_decreasing);
  }
}

TEST_CASE("refined and best: edge cases and bad input", "[packer]") {
  for (const Algorithm a : {Algorithm::refined, Algorithm::best}) {
    INFO(algorithm_name(a));
    REQUIRE(run_algorithm(a, std::vector<int64_t>{5}, {8, 0}).nested() == std::vector<std::vector<int64_t>>{{0}});
    REQUIRE(run_algorithm(a, std::vector<int64_t>(10, 16), {16, 0}).packs() == 10);
    REQUIRE(run_algorithm(a, std::vector<int64_t>(9, 1), {1, 0}).packs() == 9);
    REQUIRE(run_algorithm(a, std::vector<int64_t>(100, 1), {8, 0}).packs() == 13);
    REQUIRE(run_algorithm(a, std::vector<int64_t>(100, 1), {8, 3}).packs() == 34);
    REQUIRE(run_algorithm(a, std::vector<int64_t>(100, 1), {8, 1}).packs() == 100);
    REQUIRE(run_algorithm(a, std::vector<int64_t>{1, 7, 2, 6, 3, 5, 4, 4}, {8, 0}).packs() == 4);
    const auto message = [&](std::vector<int64_t> lengths, PackLimits limits) -> std::string {
      try {
        (void)run_algorithm(a, lengths, limits);
      } catch (const PackError& e) {
        return e.what();
      }
      return "<no PackError>";
    };
    REQUIRE(message({4, 0}, {8, 0}) == "sequence 1 has length 0");
    REQUIRE(message({}, {8, 0}) == "empty input: no sequences to pack");
    REQUIRE(message({4, 9}, {8, 0}) == "sequence 1 has length 9 > max_len 8");
    REQUIRE(message({4}, {8, -1}) == "max_per_pack must be >= 0 (0 = unlimited), got -1");
  }
  REQUIRE_THROWS_AS(refined(std::vector<int64_t>{3}, {kMaxBucketedLen + 1, 0}), PackError);
}

TEST_CASE("informal timing: refined and best, 16M uniform lengths in [1, 512], max_len 512", "[.][timing]") {
  const auto lengths = make_lengths(Dist::uniform, std::size_t{16} << 20, 512, 42);
  for (const int64_t per_pack : {int64_t{0}, int64_t{3}}) {
    for (const Algorithm a : {Algorithm::refined, Algorithm::best}) {
      const PackLimits limits{512, per_pack, 0};
      const std::clock_t c0 = std::clock();
      const auto t0 = std::chrono::steady_clock::now();
      const PackResult r = run_algorithm(a, lengths, limits);
      const auto t1 = std::chrono::steady_clock::now();
      const std::clock_t c1 = std::clock();
      const auto s = compute_stats(r, lengths, limits);
      std::printf("max_per_pack=%lld %-7s %7.3f s wall %7.3f s cpu  packs=%lld bound=%lld eff=%.4f%%\n",
                  static_cast<long long>(per_pack), algorithm_name(a), std::chrono::duration<double>(t1 - t0).count(),
                  static_cast<double>(c1 - c0) / CLOCKS_PER_SEC, static_cast<long long>(s.packs),
                  static_cast<long long>(s.lower_bound_tight), 100.0 * s.efficiency);
    }
  }
}
