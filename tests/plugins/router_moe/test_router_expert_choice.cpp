// Expert-choice routing against a brute-force reference: each expert's C
// best tokens by softmax score (double precision here), ties to the lower
// token.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "algorithms/expert_choice.hpp"
#include "router_test_support.hpp"

using namespace frugal::router;

TEST_CASE("expert choice: every expert takes its C best tokens, weights are the softmax scores") {
  const int64_t T = 200, E = 8;
  const auto logits = test::normal_logits(T, E, 1.5f, 41);
  ExpertChoiceOptions o;
  o.capacity_factor = 2.0;  // C = ceil(200 * 2 / 8) = 50
  const DispatchPlan p = expert_choice(fp32_logits(logits, T, E), o);
  REQUIRE(expert_choice_capacity(T, E, 2.0) == 50);
  REQUIRE(p.rows() == E * 50);
  std::vector<double> prob(T * E);
  for (int64_t t = 0; t < T; ++t) {
    double z = 0;
    for (int64_t e = 0; e < E; ++e) z += std::exp(double{logits[t * E + e]});
    for (int64_t e = 0; e < E; ++e) prob[t * E + e] = std::exp(double{logits[t * E + e]}) / z;
  }
  for (int64_t e = 0; e < E; ++e) {
    std::vector<int64_t> order(T);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return prob[a * E + e] > prob[b * E + e]; });
    order.resize(50);
    std::sort(order.begin(), order.end());
    const std::vector<int64_t> got(p.row_token.begin() + p.expert_offsets[e],
                                   p.row_token.begin() + p.expert_offsets[e + 1]);
    CHECK(got == order);
    for (int64_t i = 0; i < 50; ++i) CHECK(p.row_weight[e * 50 + i] == Approx(prob[order[i] * E + e]).margin(1e-6));
  }
  // Combine bookkeeping: every row once, a token's rows in expert order.
  std::vector<int> seen(p.rows(), 0);
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t i = p.token_offsets[t]; i < p.token_offsets[t + 1]; ++i) {
      ++seen[p.token_rows[i]];
      CHECK(p.row_token[p.token_rows[i]] == t);
      if (i > p.token_offsets[t]) CHECK(p.token_rows[i - 1] < p.token_rows[i]);
    }
  }
  CHECK(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
}

TEST_CASE("expert choice: identical results for any thread count") {
  const int64_t T = 600, E = 12;
  const auto logits = test::normal_logits(T, E, 1.0f, 43);
  ExpertChoiceOptions o;
  o.threads = 1;
  const DispatchPlan one = expert_choice(fp32_logits(logits, T, E), o);
  o.threads = 4;
  const DispatchPlan many = expert_choice(fp32_logits(logits, T, E), o);
  CHECK(one.row_token == many.row_token);
  CHECK(one.row_weight == many.row_weight);
  CHECK(one.token_rows == many.token_rows);
}
