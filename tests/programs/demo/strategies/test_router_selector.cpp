// PluginRouter: the router_moe plugin's selection against the model's CPU
// reference (drop by position), the drop-by-probability rule as
// router_vtable.h documents it, states, errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "ffn_moe.hpp"
#include "frugal/sdk/host.hpp"
#include "router_selector.hpp"
#include "strategy_support.hpp"

using namespace frugal_demo;

namespace {

using demo_test::plugin_context;

struct RandomRequest {
  std::vector<float> logits;
  std::vector<std::uint8_t> active;
  RouteRequest<float> request;
};

// The request as FfnMoe::forward builds it: capacity from the active tokens.
RandomRequest random_request(std::size_t tokens, const MoeOptions& o, std::uint64_t seed, int layer = 0) {
  RandomRequest r;
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.5f);
  r.logits.resize(tokens * o.experts);
  for (float& x : r.logits) x = normal(rng);
  r.active.resize(tokens);
  std::size_t active = 0;
  for (std::size_t t = 0; t < tokens; ++t) active += (r.active[t] = (rng() % 5 != 0) ? 1 : 0);
  r.request.logits = r.logits;
  r.request.active = r.active;
  r.request.tokens = tokens;
  r.request.experts = o.experts;
  r.request.k = o.top_k;
  r.request.layer = layer;
  r.request.capacity =
      o.capacity_factor > 0
          ? std::max<std::size_t>(
                1, static_cast<std::size_t>(std::ceil(o.capacity_factor * static_cast<double>(active * o.top_k) /
                                                      static_cast<double>(o.experts))))
          : std::max<std::size_t>(1, active * o.top_k);
  return r;
}

}  // namespace

TEST_CASE("router selector: with drop by position it selects exactly as the CPU reference", "[demo][strategies]") {
  const auto context = plugin_context();
  for (const double factor : {0.5, 1.0, 1.25, 0.0}) {
    for (const std::size_t k : {std::size_t{1}, std::size_t{2}}) {
      MoeOptions o;
      o.experts = 4;
      o.top_k = k;
      o.capacity_factor = factor;
      PluginRouter router(context.get(), o, 2, PluginRouter::DropPolicy::position);
      const auto select = router.selector();
      for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        const int layer = static_cast<int>(seed % 2);
        const RandomRequest r = random_request(97, o, seed, layer);
        std::vector<std::int32_t> plugin(97 * k, 7), reference(97 * k, 7);
        select(r.request, plugin);
        select_topk_with_capacity(r.request, std::span<std::int32_t>(reference));
        INFO("capacity_factor " << factor << ", k " << k << ", seed " << seed);
        CHECK(plugin == reference);
        const std::size_t dropped = static_cast<std::size_t>(std::count(reference.begin(), reference.end(), -1));
        const std::size_t padding_slots = static_cast<std::size_t>(std::count(r.active.begin(), r.active.end(), 0)) * k;
        if (factor == 0.5) CHECK(dropped > padding_slots);   // capacity really binds
        if (factor == 0.0) CHECK(dropped == padding_slots);  // dropless
        if (factor > 0)
          CHECK(router.last_capacity(static_cast<std::size_t>(layer)) == static_cast<std::int64_t>(r.request.capacity));
        CHECK(router.last_stats(static_cast<std::size_t>(layer)).tokens ==
              std::count(r.active.begin(), r.active.end(), 1));
      }
    }
  }
}

TEST_CASE("router selector: drop by probability keeps each overfull expert's most probable tokens",
          "[demo][strategies]") {
  const auto context = plugin_context();
  MoeOptions o;
  o.experts = 4;
  o.top_k = 2;
  o.capacity_factor = 0.75;
  o.renormalize = false;  // the plan's weight is then the full softmax probability
  PluginRouter router(context.get(), o, 1);
  const RandomRequest r = random_request(120, o, 11);
  std::vector<std::int32_t> plugin(240), unlimited(240);
  router.selector()(r.request, plugin);
  RouteRequest<float> no_cap = r.request;
  no_cap.capacity = 1000;
  select_topk_with_capacity(no_cap, std::span<std::int32_t>(unlimited));
  std::vector<std::size_t> demand(4, 0), kept(4, 0);
  std::vector<double> min_kept(4, 2.0), max_dropped(4, -1.0);
  for (std::size_t t = 0; t < 120; ++t) {
    const float* l = r.logits.data() + t * 4;
    double sum = 0;
    for (int e = 0; e < 4; ++e) sum += std::exp(static_cast<double>(l[e]));
    for (std::size_t s = 0; s < 2; ++s) {
      const std::int32_t want = unlimited[t * 2 + s];
      const std::int32_t got = plugin[t * 2 + s];
      // Drops aside, the same top-2 in the same rank order.
      CHECK((got == -1 || got == want));
      if (want < 0) continue;
      const auto e = static_cast<std::size_t>(want);
      const double p = std::exp(static_cast<double>(l[e])) / sum;
      ++demand[e];
      if (got >= 0) {
        ++kept[e];
        min_kept[e] = std::min(min_kept[e], p);
      } else {
        max_dropped[e] = std::max(max_dropped[e], p);
      }
    }
  }
  const auto capacity = static_cast<std::size_t>(router.last_capacity(0));
  CHECK(capacity == r.request.capacity);
  std::size_t dropped = 0;
  for (std::size_t e = 0; e < 4; ++e) {
    INFO("expert " << e);
    CHECK(kept[e] == std::min(demand[e], capacity));
    CHECK(max_dropped[e] <= min_kept[e] + 1e-6);
    dropped += demand[e] - kept[e];
  }
  CHECK(dropped > 0);
}

TEST_CASE("router selector: padding never routed; a layer without router is an error", "[demo][strategies]") {
  const auto context = plugin_context();
  MoeOptions o;
  PluginRouter router(context.get(), o, 1);
  RandomRequest r = random_request(10, o, 3);
  std::fill(r.active.begin(), r.active.end(), std::uint8_t{0});
  std::vector<std::int32_t> choice(20, 5);
  router.selector()(r.request, choice);
  CHECK(std::all_of(choice.begin(), choice.end(), [](std::int32_t c) { return c == -1; }));
  r.request.layer = 1;
  CHECK_THROWS_AS(router.selector()(r.request, choice), std::out_of_range);
}

TEST_CASE("router selector: one router per layer, named for the checkpoint", "[demo][strategies]") {
  const auto context = plugin_context();
  PluginRouter router(context.get(), MoeOptions{}, 3);
  REQUIRE(router.layers() == 3);
  CHECK(router.router(0) != nullptr);
  CHECK(router.router(0) != router.router(1));
  CHECK(router.router(1) != router.router(2));
  CHECK_THROWS_AS(router.router(3), std::out_of_range);
  CHECK(PluginRouter::layer_name(2) == "moe_router.2");
  // Each layer's state exports on its own (topk_softmax is stateless: empty).
  std::size_t size = 99;
  frugal::host::check(frugal_router_export_state(router.router(1), nullptr, 0, &size));
  CHECK(size == 0);
}

TEST_CASE("router selector: a context without router_moe is an error naming the strategy", "[demo][strategies]") {
  frugal::host::Context empty;
  CHECK_THROWS_AS(PluginRouter(empty.get(), MoeOptions{}, 1), std::runtime_error);
  CHECK_THROWS_WITH(PluginRouter(empty.get(), MoeOptions{}, 1), Catch::Contains("topk_softmax"));
}
