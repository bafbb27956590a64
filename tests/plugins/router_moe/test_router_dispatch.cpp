// The dispatch plan: expert-major layout stable by token, counts and
// offsets, and capacity drops checked against the policies' definitions
// evaluated independently here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "algorithms/dispatch_plan.hpp"
#include "algorithms/load_stats.hpp"
#include "router_test_support.hpp"

using namespace frugal::router;

namespace {

// Structural invariants every token-choice plan must satisfy.
void check_plan_shape(const Routing& r, const DispatchPlan& p) {
  REQUIRE(p.expert_offsets.size() == static_cast<std::size_t>(r.experts) + 1);
  CHECK(p.expert_offsets.front() == 0);
  CHECK(p.expert_offsets.back() == p.rows());
  int64_t dropped = 0;
  for (int64_t e = 0; e < r.experts; ++e) {
    CHECK(p.expert_offsets[e + 1] - p.expert_offsets[e] == p.expert_counts[e]);
    for (int64_t row = p.expert_offsets[e]; row < p.expert_offsets[e + 1]; ++row) {
      const int64_t s = p.row_slot[row];
      CHECK(r.expert[s] == e);
      CHECK(p.row_token[row] == s / r.k);
      CHECK(p.row_weight[row] == r.weight[s]);
      CHECK(p.slot_row[s] == row);
      if (row > p.expert_offsets[e]) CHECK(p.row_slot[row - 1] < s);  // stable: token order inside an expert
    }
  }
  for (int64_t s = 0; s < r.slots(); ++s) {
    CHECK((p.slot_row[s] < 0) == (p.dropped[s] == 1));
    dropped += p.dropped[s];
  }
  CHECK(dropped == p.dropped_count());
  // Combine bookkeeping: token t's kept slots, in slot order.
  for (int64_t t = 0; t < r.tokens; ++t) {
    std::vector<int64_t> expect;
    for (int64_t s = t * r.k; s < (t + 1) * r.k; ++s) {
      if (p.slot_row[s] >= 0) expect.push_back(p.slot_row[s]);
    }
    const std::vector<int64_t> got(p.token_rows.begin() + p.token_offsets[t],
                                   p.token_rows.begin() + p.token_offsets[t + 1]);
    CHECK(got == expect);
  }
}

}  // namespace

TEST_CASE("dispatch plan: a hand-made routing lands expert-major, stable by token") {
  // 3 tokens, k 2, 3 experts: token 0 -> (2, 0), token 1 -> (0, 1), token 2 -> (0, 2).
  const Routing r{3, 3, 2, {2, 0, 0, 1, 0, 2}, {0.6f, 0.4f, 0.7f, 0.3f, 0.9f, 0.1f}};
  const DispatchPlan p = build_dispatch_plan(r);
  CHECK(p.expert_counts == std::vector<int64_t>{3, 1, 2});
  CHECK(p.expert_offsets == std::vector<int64_t>{0, 3, 4, 6});
  CHECK(p.row_token == std::vector<int64_t>{0, 1, 2, 1, 0, 2});
  CHECK(p.row_weight == std::vector<float>{0.4f, 0.7f, 0.9f, 0.3f, 0.6f, 0.1f});
  CHECK(p.token_rows == std::vector<int64_t>{4, 0, 1, 3, 2, 5});
  CHECK(p.dropped_count() == 0);
  check_plan_shape(r, p);
  const LoadStats s = load_stats(p, 0.25f);
  CHECK(s.max_over_mean == Approx(1.5));  // loads 3, 1, 2 against a mean of 2
  CHECK(s.dropped_fraction == 0.0);
  CHECK(s.aux_loss == 0.25f);
}

TEST_CASE("capacity: C = ceil(T k CF / E), at least 1") {
  CHECK(expert_capacity(100, 2, 8, 1.25) == 32);  // 31.25 -> 32
  CHECK(expert_capacity(64, 2, 8, 1.0) == 16);    // exact: no rounding up
  CHECK(expert_capacity(3, 1, 64, 1.0) == 1);     // 0.05 -> 1, never 0
  CHECK(expert_capacity(10, 2, 4, 100.0) == 20);  // never above T * k
  CHECK_THROWS_AS(expert_capacity(10, 2, 4, 0.0), RouterError);
}

TEST_CASE("capacity: both drop policies drop exactly the promised assignments") {
  const int64_t T = 333, E = 12, k = 3;
  const Routing r = test::random_routing(T, E, k, 17);
  const double factor = 1.0;
  const int64_t C = expert_capacity(T, k, E, factor);
  for (const auto policy : {DropPolicy::by_position, DropPolicy::by_probability}) {
    const DispatchPlan p = build_dispatch_plan(r, CapacityOptions{policy, factor});
    check_plan_shape(r, p);
    std::vector<uint8_t> expect_dropped(static_cast<std::size_t>(T * k), 0);
    int64_t expect_total = 0;
    for (int32_t e = 0; e < E; ++e) {
      std::vector<int64_t> asked;
      for (int64_t s = 0; s < T * k; ++s) {
        if (r.expert[s] == e) asked.push_back(s);
      }
      if (policy == DropPolicy::by_probability) {
        std::stable_sort(asked.begin(), asked.end(), [&](int64_t a, int64_t b) { return r.weight[a] > r.weight[b]; });
      }
      for (std::size_t i = static_cast<std::size_t>(C); i < asked.size(); ++i) expect_dropped[asked[i]] = 1;
      expect_total += std::max<int64_t>(0, static_cast<int64_t>(asked.size()) - C);
      CHECK(p.expert_counts[e] == std::min<int64_t>(C, static_cast<int64_t>(asked.size())));
      CHECK(p.expert_demand[e] == static_cast<int64_t>(asked.size()));
    }
    REQUIRE(expect_total > 0);  // the skewed routing does overflow some experts
    CHECK(p.dropped == expect_dropped);
    CHECK(load_stats(p).dropped_fraction == Approx(static_cast<double>(expect_total) / (T * k)));
  }
  const DispatchPlan dropless = build_dispatch_plan(r, CapacityOptions{DropPolicy::dropless, 0.5});
  CHECK(dropless.rows() == T * k);
  check_plan_shape(r, dropless);
}

TEST_CASE("dispatch plan: invalid routings are rejected") {
  CHECK_THROWS_AS(build_dispatch_plan(Routing{2, 3, 1, {0, 3}, {1, 1}}), RouterError);
  CHECK_THROWS_AS(build_dispatch_plan(Routing{2, 3, 1, {0}, {1}}), RouterError);
}
