#include "packer_test_support.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>

#include "algorithms/stats.hpp"

namespace frugal::packer::test {

const char* dist_name(Dist d) {
  switch (d) {
    case Dist::uniform: return "uniform";
    case Dist::lognormal_tail: return "lognormal";
    case Dist::bimodal: return "bimodal";
    case Dist::short_heavy: return "short_heavy";
  }
  return "?";
}

std::vector<int64_t> make_lengths(Dist d, std::size_t n, int64_t max_len, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> out(n);
  const auto ml = static_cast<double>(max_len);
  std::uniform_int_distribution<int64_t> uni(1, max_len);
  std::lognormal_distribution<double> logn(std::log(ml / 6.0), 0.9);
  std::normal_distribution<double> lo(ml * 0.15, ml * 0.05);
  std::normal_distribution<double> hi(ml * 0.8, ml * 0.08);
  std::bernoulli_distribution coin(0.5);
  std::geometric_distribution<int64_t> geo(8.0 / ml);
  const auto clip = [&](double v) { return std::clamp<int64_t>(static_cast<int64_t>(std::llround(v)), 1, max_len); };
  for (auto& len : out) {
    switch (d) {
      case Dist::uniform: len = uni(rng); break;
      case Dist::lognormal_tail: len = clip(logn(rng)); break;
      case Dist::bimodal: len = clip(coin(rng) ? lo(rng) : hi(rng)); break;
      case Dist::short_heavy: len = std::clamp<int64_t>(1 + geo(rng), 1, max_len); break;
    }
  }
  return out;
}

void check_valid(const PackResult& r, std::span<const int64_t> lengths, const PackLimits& limits) {
  REQUIRE(r.offsets.size() == r.packs() + 1);
  REQUIRE(r.offsets.front() == 0);
  REQUIRE(r.offsets.back() == static_cast<int64_t>(r.items.size()));
  REQUIRE(r.items.size() == lengths.size());
  std::vector<int> seen(lengths.size(), 0);
  int64_t total = 0;
  for (std::size_t p = 0; p < r.packs(); ++p) {
    const auto items = r.pack(p);
    REQUIRE(!items.empty());
    if (limits.max_per_pack > 0) REQUIRE(static_cast<int64_t>(items.size()) <= limits.max_per_pack);
    int64_t tokens = 0;
    for (const int64_t i : items) {
      REQUIRE(i >= 0);
      REQUIRE(i < static_cast<int64_t>(lengths.size()));
      ++seen[static_cast<std::size_t>(i)];
      tokens += lengths[static_cast<std::size_t>(i)];
    }
    REQUIRE(tokens == r.tokens[p]);
    REQUIRE(tokens <= limits.max_len);
    total += tokens;
  }
  REQUIRE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
  const PackStats s = compute_stats(r, lengths, limits);
  REQUIRE(s.real_tokens == total);
  REQUIRE(s.packs >= s.lower_bound_tight);
  REQUIRE(s.lower_bound_tight >= s.lower_bound);
}

}  // namespace frugal::packer::test
