// The lower bound a plan reports (computed by libfrugal) and the one the
// packer_seq algorithms use (plugins/packer_seq/algorithms/bounds.cpp) are
// two independent implementations of the same published bounds; they must
// agree on every input, and no packing may ever beat them.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "algorithms/bounds.hpp"
#include "algorithms/order.hpp"
#include "frugal/sdk/host.hpp"

namespace {

using namespace frugal;

std::vector<int64_t> random_lengths(std::mt19937_64& rng, std::size_t n, int64_t max_len) {
  std::lognormal_distribution<double> tail(std::log(static_cast<double>(max_len) / 6.0), 0.9);
  std::uniform_int_distribution<int64_t> any(1, max_len);
  std::bernoulli_distribution pick_tail(0.6);
  std::vector<int64_t> lengths(n);
  for (auto& len : lengths) {
    const int64_t raw = pick_tail(rng) ? static_cast<int64_t>(tail(rng)) : any(rng);
    len = std::clamp<int64_t>(raw, 1, max_len);
  }
  return lengths;
}

host::PackPlanPtr pack_with(frugal_context* context, const std::vector<int64_t>& lengths, int64_t max_len,
                            int64_t max_per_pack, const char* algo) {
  auto options = host::make_options();
  host::check(frugal_options_set_int(options.get(), "max_len", max_len));
  host::check(frugal_options_set_int(options.get(), "max_per_pack", max_per_pack));
  host::check(frugal_options_set_string(options.get(), "algo", algo));
  auto packer = host::make_packer(context, "packer_seq", options.get());
  frugal_pack_plan* plan = nullptr;
  host::check(frugal_packer_pack(packer.get(), lengths.data(), lengths.size(), &plan));
  return host::PackPlanPtr(plan);
}

}  // namespace

TEST_CASE("the plan's tight lower bound equals the algorithms' bound and no packing beats it", "[packer][bounds]") {
  auto context = host::make_context();
  host::check(frugal_context_discover_plugins(context.get(), 0, nullptr));
  std::mt19937_64 rng(20261130);
  for (const int64_t max_len : {16, 64, 512, 4096}) {
    for (const int64_t limit : {0, 2, 3, 5}) {
      for (const std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{300}, std::size_t{5000}}) {
        INFO("max_len " << max_len << " limit " << limit << " n " << n);
        const auto lengths = random_lengths(rng, n, max_len);
        const auto plan = pack_with(context.get(), lengths, max_len, limit, "best");
        frugal_pack_stats stats{};
        stats.struct_size = sizeof(stats);
        host::check(frugal_pack_plan_stats(plan.get(), &stats));
        const auto histogram = packer::length_histogram(lengths, max_len);
        const int64_t reference = packer::pack_lower_bound(histogram, packer::PackLimits{max_len, limit, 0});
        CHECK(stats.lower_bound_tight == reference);
        CHECK(stats.lower_bound_tight >= stats.lower_bound);
        CHECK(stats.packs >= stats.lower_bound_tight);
      }
    }
  }
}

TEST_CASE("the tight bound is exact on inputs where L2 is known to be reached", "[packer][bounds]") {
  auto context = host::make_context();
  host::check(frugal_context_discover_plugins(context.get(), 0, nullptr));
  // Ten units of 6 with max_len 10: the token bound says 6 packs, but no two
  // units of 6 share a pack, so 10 are needed; L2 sees it.
  const std::vector<int64_t> sixes(10, 6);
  auto plan = pack_with(context.get(), sixes, 10, 0, "ffd");
  frugal_pack_stats stats{};
  stats.struct_size = sizeof(stats);
  host::check(frugal_pack_plan_stats(plan.get(), &stats));
  CHECK(stats.lower_bound == 6);
  CHECK(stats.lower_bound_tight == 10);
  CHECK(stats.packs == 10);
  // Seven units of 1 with at most 3 per pack: 3 packs, though one would hold all the tokens.
  plan = pack_with(context.get(), std::vector<int64_t>(7, 1), 10, 3, "bfd");
  host::check(frugal_pack_plan_stats(plan.get(), &stats));
  CHECK(stats.lower_bound == 1);
  CHECK(stats.lower_bound_tight == 3);
  CHECK(stats.packs == 3);
  // Three 95s leave room for one 4 each (3 per pack): the other nine 4s need
  // three more packs. Token bound 4, count bound 5, the per-long-pack bound 6.
  std::vector<int64_t> mixed{95, 95, 95};
  mixed.insert(mixed.end(), 12, 4);
  plan = pack_with(context.get(), mixed, 100, 3, "refined");
  host::check(frugal_pack_plan_stats(plan.get(), &stats));
  CHECK(stats.lower_bound == 4);
  CHECK(stats.lower_bound_tight == 6);
  CHECK(stats.packs == 6);
}
