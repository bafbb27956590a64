// The packer's CPU algorithm core: property tests over random length
// distributions for every algorithm (with and without max_per_pack), exact
// agreement of FFD/BFD with naive references on sorted input, determinism,
// the overlong policy, stats and input errors. A hidden [.][timing] case
// prints informal timings.
#include <catch2/catch.hpp>

#include "packer_test_support.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "algorithms/best_fit.hpp"
#include "algorithms/first_fit.hpp"
#include "algorithms/histogram_packing.hpp"
#include "algorithms/min_tree.hpp"
#include "algorithms/occupancy_set.hpp"
#include "algorithms/order.hpp"
#include "algorithms/overlong.hpp"
#include "algorithms/packer.hpp"
#include "algorithms/stats.hpp"

using namespace frugal::packer;
using namespace frugal::packer::test;

namespace {

const Algorithm kAll[] = {Algorithm::naive_first_fit, Algorithm::first_fit_decreasing, Algorithm::best_fit_decreasing,
                          Algorithm::spfhp, Algorithm::lpfhp};

// Applies an algorithm to lengths[order] and maps the items back.
PackResult on_sorted(std::span<const int64_t> lengths, std::span<const int64_t> order,
                     PackResult (*algo)(std::span<const int64_t>, const PackLimits&), const PackLimits& limits) {
  std::vector<int64_t> sorted(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) sorted[k] = lengths[static_cast<std::size_t>(order[k])];
  PackResult r = algo(sorted, limits);
  for (auto& item : r.items) item = order[static_cast<std::size_t>(item)];
  return r;
}

// Reference best fit in input order: scan every pack, the smallest residual
// that fits, ties to the lowest pack number.
PackResult naive_best_fit(std::span<const int64_t> lengths, const PackLimits& limits) {
  std::vector<std::vector<int64_t>> packs;
  std::vector<int64_t> residual;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    std::size_t best = packs.size();
    for (std::size_t p = 0; p < packs.size(); ++p) {
      if (residual[p] < lengths[i]) continue;
      if (limits.max_per_pack > 0 && static_cast<int64_t>(packs[p].size()) >= limits.max_per_pack) continue;
      if (best == packs.size() || residual[p] < residual[best]) best = p;
    }
    if (best == packs.size()) {
      packs.emplace_back();
      residual.push_back(limits.max_len);
    }
    packs[best].push_back(static_cast<int64_t>(i));
    residual[best] -= lengths[i];
  }
  PackResult r;
  for (std::size_t p = 0; p < packs.size(); ++p) {
    r.items.insert(r.items.end(), packs[p].begin(), packs[p].end());
    r.offsets.push_back(static_cast<int64_t>(r.items.size()));
    r.tokens.push_back(limits.max_len - residual[p]);
  }
  return r;
}

template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const PackError& e) {
    return e.what();
  }
  return "<no PackError>";
}

}  // namespace

TEST_CASE("every algorithm packs every distribution validly and deterministically", "[packer]") {
  const int64_t max_len = 512;
  for (const Dist d : kDists) {
    for (const int64_t per_pack : {int64_t{0}, int64_t{3}}) {
      for (const std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{300}, std::size_t{2000}}) {
        const auto lengths = make_lengths(d, n, max_len, 1234 + n);
        const PackLimits limits{max_len, per_pack};
        for (const Algorithm a : kAll) {
          INFO(dist_name(d) << " n=" << n << " max_per_pack=" << per_pack << " " << algorithm_name(a));
          const PackResult r = run_algorithm(a, lengths, limits);
          check_valid(r, lengths, limits);
          REQUIRE(run_algorithm(a, lengths, limits) == r);
          if (per_pack == 0) {
            // Any-fit: a new pack opens only when nothing fits, so any two
            // packs together hold more than max_len.
            const auto s = compute_stats(r, lengths, limits);
            REQUIRE(static_cast<double>(s.packs) <=
                    2.0 * static_cast<double>(s.real_tokens) / static_cast<double>(max_len) + 1.0);
          }
        }
      }
    }
  }
}

TEST_CASE("FFD is naive first fit on the sorted input, assignment for assignment", "[packer]") {
  for (const Dist d : kDists) {
    for (const int64_t per_pack : {int64_t{0}, int64_t{3}}) {
      for (const int64_t max_len : {int64_t{64}, int64_t{512}, int64_t{4096}}) {
        INFO(dist_name(d) << " max_len=" << max_len << " max_per_pack=" << per_pack);
        const auto lengths = make_lengths(d, 3000, max_len, 99);
        const PackLimits limits{max_len, per_pack};
        const auto order = decreasing_order(lengths, max_len);
        const PackResult ffd = first_fit_decreasing(lengths, limits);
        REQUIRE(ffd == on_sorted(lengths, order, &naive_first_fit, limits));
      }
    }
  }
}

TEST_CASE("BFD is naive best fit on the sorted input, assignment for assignment", "[packer]") {
  for (const Dist d : kDists) {
    for (const int64_t per_pack : {int64_t{0}, int64_t{3}}) {
      for (const int64_t max_len : {int64_t{64}, int64_t{512}, int64_t{4096}}) {
        INFO(dist_name(d) << " max_len=" << max_len << " max_per_pack=" << per_pack);
        const auto lengths = make_lengths(d, 3000, max_len, 7);
        const PackLimits limits{max_len, per_pack};
        const auto order = decreasing_order(lengths, max_len);
        REQUIRE(best_fit_decreasing(lengths, limits) == on_sorted(lengths, order, &naive_best_fit, limits));
      }
    }
  }
}

// Few distinct lengths in long equal-length runs, chosen so that runs end
// part-way through a pack, packs take several copies of one length, and
// residual buckets fill out of pack order.
std::vector<int64_t> make_runs(std::size_t n, int64_t max_len, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> uni(1, max_len);
  std::vector<int64_t> alphabet{max_len, max_len / 2 + 1, max_len / 3, 1, 2, 7};
  for (int j = 0; j < 6; ++j) alphabet.push_back(uni(rng));
  for (auto& a : alphabet) a = std::clamp<int64_t>(a, 1, max_len);
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  std::vector<int64_t> out(n);
  for (auto& len : out) len = alphabet[pick(rng)];
  return out;
}

TEST_CASE("FFD and BFD match the naive references on long equal-length runs and large max_len", "[packer]") {
  struct Case {
    int64_t max_len;
    std::size_t n;
    bool runs;
  };
  // 70000 with n = 17500 keeps the bucketed first fit (max_len <= 4 n) past
  // 16-bit residuals; 100000 with n = 3000 takes first fit's tree fallback.
  const Case cases[] = {{1, 50, true},         {8, 400, true},        {64, 2000, true},
                        {512, 3000, true},     {8192, 3000, true},    {8192, 3000, false},
                        {70000, 17500, false}, {100000, 3000, false}, {100000, 3000, true}};
  for (const Case& c : cases) {
    for (const int64_t per_pack : {int64_t{0}, int64_t{1}, int64_t{3}, int64_t{7}}) {
      for (const uint64_t seed : {uint64_t{1}, uint64_t{2}}) {
        if (c.n > 5000 && (seed > 1 || per_pack == 1 || per_pack == 7)) continue;  // keep the naive scans short
        INFO("max_len=" << c.max_len << " n=" << c.n << " runs=" << c.runs << " max_per_pack=" << per_pack
                        << " seed=" << seed);
        const auto lengths =
            c.runs ? make_runs(c.n, c.max_len, seed) : make_lengths(Dist::short_heavy, c.n, c.max_len, seed);
        const PackLimits limits{c.max_len, per_pack};
        const auto order = decreasing_order(lengths, c.max_len);
        const PackResult ffd = first_fit_decreasing(lengths, limits);
        REQUIRE(ffd == on_sorted(lengths, order, &naive_first_fit, limits));
        REQUIRE(best_fit_decreasing(lengths, limits) == on_sorted(lengths, order, &naive_best_fit, limits));
      }
    }
  }
}

TEST_CASE("FFD and BFD part ways where first and best fit do", "[packer]") {
  // Sorted: 5 opens pack 0 (residual 2), both 3s go to pack 1 (residual 1);
  // the 1 fits both: first fit takes pack 0, best fit the tighter pack 1.
  const std::vector<int64_t> lengths{1, 3, 5, 3};
  REQUIRE(first_fit_decreasing(lengths, {7, 0}).nested() == std::vector<std::vector<int64_t>>{{2, 0}, {1, 3}});
  REQUIRE(best_fit_decreasing(lengths, {7, 0}).nested() == std::vector<std::vector<int64_t>>{{2}, {1, 3, 0}});
}

TEST_CASE("min tree finds the smallest value at or after a leaf", "[packer]") {
  for (const std::size_t leaves : {std::size_t{1}, std::size_t{5}, std::size_t{64}, std::size_t{1000}}) {
    MinTree<uint32_t> tree(leaves);
    std::vector<uint32_t> ref(leaves, MinTree<uint32_t>::kEmpty);
    std::mt19937_64 rng(leaves);
    std::uniform_int_distribution<std::size_t> pick(0, leaves - 1);
    uint32_t next_value = 1000000;
    for (int step = 0; step < 3000; ++step) {
      const std::size_t leaf = pick(rng);
      // Distinct values (as pack numbers are), some removals.
      const uint32_t value = rng() % 4 == 0
                                 ? MinTree<uint32_t>::kEmpty
                                 : next_value - static_cast<uint32_t>(rng() % 997) * 1000 - static_cast<uint32_t>(step);
      ++next_value;
      if (value != MinTree<uint32_t>::kEmpty && std::find(ref.begin(), ref.end(), value) != ref.end()) continue;
      tree.set(leaf, value);
      ref[leaf] = value;
      const std::size_t from = pick(rng);
      const auto it = std::min_element(ref.begin() + static_cast<std::ptrdiff_t>(from), ref.end());
      const auto [where, best] = tree.min_from(from);
      REQUIRE(best == *it);
      REQUIRE(where == (*it == MinTree<uint32_t>::kEmpty ? MinTree<uint32_t>::npos
                                                         : static_cast<std::size_t>(it - ref.begin())));
    }
  }
}

TEST_CASE("decreasing order: length descending, ties by index, both sort paths", "[packer]") {
  const std::vector<int64_t> lengths{3, 5, 3, 1, 5, 2};
  const std::vector<int64_t> expected{1, 4, 0, 2, 5, 3};
  REQUIRE(decreasing_order(lengths, 5) == expected);                 // counting sort
  REQUIRE(decreasing_order(lengths, int64_t{1} << 40) == expected);  // comparison sort
}

TEST_CASE("edge cases have the obvious packings", "[packer]") {
  for (const Algorithm a : kAll) {
    INFO(algorithm_name(a));
    SECTION("one sequence") {
      const std::vector<int64_t> one{5};
      const auto r = run_algorithm(a, one, {8, 0});
      REQUIRE(r.nested() == std::vector<std::vector<int64_t>>{{0}});
      REQUIRE(r.tokens == std::vector<int64_t>{5});
    }
    SECTION("every sequence full length") {
      const std::vector<int64_t> full(10, 16);
      const auto r = run_algorithm(a, full, {16, 0});
      REQUIRE(r.packs() == 10);
      check_valid(r, full, {16, 0});
    }
    SECTION("max_len 1") {
      const std::vector<int64_t> ones(9, 1);
      REQUIRE(run_algorithm(a, ones, {1, 0}).packs() == 9);
    }
    SECTION("unit lengths fill packs exactly, or up to max_per_pack") {
      const std::vector<int64_t> ones(100, 1);
      REQUIRE(run_algorithm(a, ones, {8, 0}).packs() == 13);
      REQUIRE(run_algorithm(a, ones, {8, 3}).packs() == 34);
      REQUIRE(run_algorithm(a, ones, {8, 1}).packs() == 100);
    }
    SECTION("perfect complements pair up") {
      const std::vector<int64_t> pairs{1, 7, 2, 6, 3, 5, 4, 4};
      if (a != Algorithm::naive_first_fit) REQUIRE(run_algorithm(a, pairs, {8, 0}).packs() == 4);
    }
  }
}

TEST_CASE("histogram algorithms reach high efficiency on a wide uniform histogram", "[packer]") {
  const auto lengths = make_lengths(Dist::uniform, 100000, 512, 5);
  for (const Algorithm a :
       {Algorithm::first_fit_decreasing, Algorithm::best_fit_decreasing, Algorithm::spfhp, Algorithm::lpfhp}) {
    INFO(algorithm_name(a));
    const auto s = compute_stats(run_algorithm(a, lengths, {512, 0}), lengths, {512, 0});
    REQUIRE(s.efficiency > 0.99);
  }
}

TEST_CASE("SPFHP places into the emptiest pack, LPFHP into the fullest", "[packer]") {
  // After 6 and 5 open two packs (residuals 4 and 5), the 3 goes to the pack
  // with residual 5 under SPFHP and residual 4 under LPFHP.
  const std::vector<int64_t> lengths{6, 5, 3};
  REQUIRE(spfhp(lengths, {10, 0}).nested() == std::vector<std::vector<int64_t>>{{0}, {1, 2}});
  // Packs come out in group creation order: {6, 3} is a newer group than {5}.
  REQUIRE(lpfhp(lengths, {10, 0}).nested() == std::vector<std::vector<int64_t>>{{1}, {0, 2}});
}

TEST_CASE("overlong policy: truncate, split and error; nothing is dropped", "[packer]") {
  const std::vector<int64_t> lengths{10, 25, 3, 8};
  SECTION("truncate") {
    const auto in = apply_overlong_policy(lengths, 8, OverlongPolicy::truncate);
    REQUIRE(in.lengths == std::vector<int64_t>{8, 8, 3, 8});
    REQUIRE(in.pieces.empty());
    REQUIRE(in.piece(1) == Piece{1, 0, 8});
  }
  SECTION("split") {
    const auto in = apply_overlong_policy(lengths, 8, OverlongPolicy::split);
    REQUIRE(in.lengths == std::vector<int64_t>{8, 2, 8, 8, 8, 1, 3, 8});
    REQUIRE(in.pieces == std::vector<Piece>{
                             {0, 0, 8}, {0, 8, 2}, {1, 0, 8}, {1, 8, 8}, {1, 16, 8}, {1, 24, 1}, {2, 0, 3}, {3, 0, 8}});
  }
  SECTION("error") {
    REQUIRE(error_of([&] { (void)apply_overlong_policy(lengths, 8, OverlongPolicy::error); }) ==
            "sequence 0 has length 10 > max_len 8 (overlong policy: error)");
  }
  SECTION("nothing overlong: identity") {
    const auto in = apply_overlong_policy(lengths, 25, OverlongPolicy::split);
    REQUIRE(in.lengths == lengths);
    REQUIRE(in.pieces.empty());
  }
  SECTION("pack_sequences with split packs every piece once") {
    for (const Algorithm a : kAll) {
      INFO(algorithm_name(a));
      const auto out = pack_sequences(lengths, {a, 8, 3, OverlongPolicy::split});
      check_valid(out.result, out.input.lengths, {8, 3});
      REQUIRE(out.stats.real_tokens == 46);
      REQUIRE(out.stats.lower_bound == 6);
    }
  }
}

TEST_CASE("stats: efficiency and lower bound", "[packer]") {
  const std::vector<int64_t> lengths{6, 5, 3};
  const auto s = compute_stats(first_fit_decreasing(lengths, {10, 0}), lengths, {10, 0});
  REQUIRE(s.packs == 2);
  REQUIRE(s.sequences == 3);
  REQUIRE(s.real_tokens == 14);
  REQUIRE(s.lower_bound == 2);
  REQUIRE(s.efficiency == Approx(0.7));
  REQUIRE(s.max_pack_tokens == 9);
  REQUIRE(s.max_pack_size == 2);
}

TEST_CASE("bad input is refused with a clear message", "[packer]") {
  const std::vector<int64_t> ok{3, 4};
  std::vector<int64_t> zero(20, 5);
  zero[17] = 0;
  const std::vector<int64_t> negative{4, -2};
  const std::vector<int64_t> empty;
  const std::vector<int64_t> overlong{4, 9};
  for (const Algorithm a : kAll) {
    INFO(algorithm_name(a));
    REQUIRE(error_of([&] { (void)run_algorithm(a, zero, {8, 0}); }) == "sequence 17 has length 0");
    REQUIRE(error_of([&] { (void)run_algorithm(a, negative, {8, 0}); }) == "sequence 1 has length -2");
    REQUIRE(error_of([&] { (void)run_algorithm(a, empty, {8, 0}); }) == "empty input: no sequences to pack");
    REQUIRE(error_of([&] { (void)run_algorithm(a, ok, {0, 0}); }) == "max_len must be positive, got 0");
    REQUIRE(error_of([&] { (void)run_algorithm(a, ok, {-5, 0}); }) == "max_len must be positive, got -5");
    REQUIRE(error_of([&] {
              (void)run_algorithm(a, ok, {8, -1});
            }) == "max_per_pack must be >= 0 (0 = unlimited), got -1");
    REQUIRE(error_of([&] { (void)run_algorithm(a, overlong, {8, 0}); }) == "sequence 1 has length 9 > max_len 8");
    REQUIRE(error_of([&] {
              (void)pack_sequences(zero, {a, 8, 0, OverlongPolicy::split});
            }) == "sequence 17 has length 0");
    REQUIRE(error_of([&] {
              (void)pack_sequences(overlong, {a, 8, 0, OverlongPolicy::error});
            }) == "sequence 1 has length 9 > max_len 8 (overlong policy: error)");
  }
  REQUIRE(error_of([&] {
            (void)best_fit_decreasing(ok, {kMaxBucketedLen + 1, 0});
          }).find("exceeds") != std::string::npos);
}

TEST_CASE("occupancy set agrees with std::set", "[packer]") {
  for (const std::size_t universe : {std::size_t{1}, std::size_t{70}, std::size_t{5000}, std::size_t{300000}}) {
    OccupancySet bits(universe);
    std::set<std::size_t> ref;
    std::mt19937_64 rng(universe);
    std::uniform_int_distribution<std::size_t> pick(0, universe - 1);
    for (int step = 0; step < 4000; ++step) {
      const std::size_t x = pick(rng);
      if (rng() % 3 == 0) {
        bits.erase(x);
        ref.erase(x);
      } else {
        bits.insert(x);
        ref.insert(x);
      }
      const std::size_t q = pick(rng);
      const auto it = ref.lower_bound(q);
      REQUIRE(bits.next_at_least(q) == (it == ref.end() ? OccupancySet::npos : *it));
      REQUIRE(bits.largest() == (ref.empty() ? OccupancySet::npos : *ref.rbegin()));
      REQUIRE(bits.contains(x) == (ref.count(x) == 1));
    }
  }
}

// The target: 16M sequences packed, assignments returned, in under
// 2 s on one core. Wall time includes faulting in fresh memory for the
// result, which on some virtualised hosts costs more than the packing.
TEST_CASE("informal timing: 1M and 16M sequences, max_len 512/2048/8192, uniform and lognormal", "[.][timing]") {
  for (const std::size_t n : {std::size_t{1} << 20, std::size_t{16} << 20}) {
    for (const int64_t max_len : {int64_t{512}, int64_t{2048}, int64_t{8192}}) {
      for (const Dist d : {Dist::uniform, Dist::lognormal_tail}) {
        const auto lengths = make_lengths(d, n, max_len, 42);
        for (const Algorithm a :
             {Algorithm::first_fit_decreasing, Algorithm::best_fit_decreasing, Algorithm::spfhp, Algorithm::lpfhp}) {
          const PackLimits limits{max_len, 0};
          const auto t0 = std::chrono::steady_clock::now();
          const PackResult r = run_algorithm(a, lengths, limits);
          const auto t1 = std::chrono::steady_clock::now();
          const auto s = compute_stats(r, lengths, limits);
          std::printf("n=%zu max_len=%lld %-9s %-6s %8.3f s  packs=%lld lb=%lld eff=%.4f%%\n", n,
                      static_cast<long long>(max_len), dist_name(d), algorithm_name(a),
                      std::chrono::duration<double>(t1 - t0).count(), static_cast<long long>(s.packs),
                      static_cast<long long>(s.lower_bound), 100.0 * s.efficiency);
        }
      }
    }
  }
}
