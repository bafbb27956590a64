// DeepSeek-V3 gate against an independent reference written here in another
// style (double precision, repeated argmax scans, explicit kept-group
// flags), and its pitfalls: -inf group masks, underflowing scores.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "algorithms/deepseek_gate.hpp"
#include "router_test_support.hpp"

using namespace frugal::router;

namespace {

struct RefChoice {
  std::vector<int> experts;
  std::vector<double> weights;
};

// Index of the largest value among the allowed ones, lowest index on ties.
int argmax(const std::vector<double>& v, const std::vector<bool>& allowed) {
  int best = -1;
  for (int i = 0; i < static_cast<int>(v.size()); ++i) {
    if (allowed[i] && (best < 0 || v[i] > v[best])) best = i;
  }
  return best;
}

RefChoice reference(const float* logits, int E, const std::vector<float>& bias, const DeepSeekGateOptions& o) {
  std::vector<double> score(E), biased(E);
  if (o.score == ScoreFunction::sigmoid) {
    for (int e = 0; e < E; ++e) score[e] = 1.0 / (1.0 + std::exp(-double{logits[e]}));
  } else {
    double mx = logits[0], z = 0;
    for (int e = 1; e < E; ++e) mx = std::max(mx, double{logits[e]});
    for (int e = 0; e < E; ++e) z += std::exp(logits[e] - mx);
    for (int e = 0; e < E; ++e) score[e] = std::exp(logits[e] - mx) / z;
  }
  for (int e = 0; e < E; ++e) biased[e] = score[e] + (bias.empty() ? 0.0 : double{bias[e]});

  const int G = static_cast<int>(o.groups), size = E / G;
  std::vector<bool> expert_ok(E, true);
  if (G > 1) {
    std::vector<double> group(G);
    for (int g = 0; g < G; ++g) {
      double first = -INFINITY, second = -INFINITY;
      for (int e = g * size; e < (g + 1) * size; ++e) {
        if (biased[e] > first) {
          second = first;
          first = biased[e];
        } else if (biased[e] > second) {
          second = biased[e];
        }
      }
      group[g] = bias.empty() ? first : first + second;
    }
    std::vector<bool> group_left(G, true), group_kept(G, false);
    for (int n = 0; n < o.topk_groups; ++n) {
      const int g = argmax(group, group_left);
      group_kept[g] = true;
      group_left[g] = false;
    }
    for (int e = 0; e < E; ++e) expert_ok[e] = group_kept[e / size];
  }
  RefChoice c;
  double sum = 0;
  for (int j = 0; j < o.k; ++j) {
    const int e = argmax(biased, expert_ok);
    expert_ok[e] = false;
    c.experts.push_back(e);
    c.weights.push_back(score[e]);
    sum += score[e];
  }
  for (double& w : c.weights) {
    if (o.score == ScoreFunction::sigmoid) w /= sum + 1e-20;
    w *= o.route_scale;
  }
  return c;
}

void compare_with_reference(int64_t T, int64_t E, const DeepSeekGateOptions& o, bool with_bias, uint64_t seed) {
  const auto logits = test::normal_logits(T, E, 2.0f, seed);
  std::vector<float> bias;
  if (with_bias) {
    std::mt19937_64 rng(seed + 1);
    std::uniform_real_distribution<float> d(-0.2f, 0.2f);
    for (int64_t e = 0; e < E; ++e) bias.push_back(d(rng));
  }
  const Routing r = deepseek_v3_gate(fp32_logits(logits, T, E), bias, o);
  int64_t index_mismatches = 0;
  double worst = 0;
  for (int64_t t = 0; t < T; ++t) {
    const RefChoice c = reference(logits.data() + t * E, static_cast<int>(E), bias, o);
    for (int64_t j = 0; j < o.k; ++j) {
      if (r.experts_of(t)[j] != c.experts[j]) ++index_mismatches;
      worst = std::max(worst, std::abs(r.weights_of(t)[j] - c.weights[j]));
    }
  }
  CHECK(index_mismatches == 0);
  CHECK(worst <= 1e-6);
}

}  // namespace

TEST_CASE(
    "deepseek gate: 256 experts, top-8, 8 groups, top-4 groups, with bias: indices and weights as the reference") {
  DeepSeekGateOptions o = test::gate(8, 8, 4, 2.5f);
  o.threads = 2;
  compare_with_reference(384, 256, o, true, 101);
  compare_with_reference(128, 256, o, false, 102);
}

TEST_CASE("deepseek gate: small configs (sigmoid and softmax, with and without bias) as the reference") {
  DeepSeekGateOptions o = test::gate(3, 4, 2, 1.5f);
  for (const auto score : {ScoreFunction::sigmoid, ScoreFunction::softmax}) {
    o.score = score;
    compare_with_reference(500, 16, o, true, 201);
    compare_with_reference(500, 16, o, false, 202);
  }
  o.groups = 1;
  o.topk_groups = 1;
  o.k = 2;
  compare_with_reference(300, 8, o, true, 203);
}

TEST_CASE("deepseek gate: with negative biases a masked group's expert is never chosen") {
  // Every biased score is below -4: a 0 mask would beat them all and pull
  // masked experts in. With -inf the 4 choices fill the one kept group.
  const int64_t T = 400, E = 16;
  const DeepSeekGateOptions o = test::gate(4, 4, 1);
  std::vector<float> bias(E);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<float> d(-10.0f, -5.0f);
  for (float& b : bias) b = d(rng);
  const auto logits = test::normal_logits(T, E, 2.0f, 9);
  const Routing r = deepseek_v3_gate(fp32_logits(logits, T, E), bias, o);
  for (int64_t t = 0; t < T; ++t) {
    // The group the test expects: largest sum of its top-2 biased scores.
    int best_group = 0;
    double best = -INFINITY;
    for (int g = 0; g < 4; ++g) {
      std::vector<double> b;
      for (int e = 4 * g; e < 4 * g + 4; ++e) b.push_back(1 / (1 + std::exp(-double{logits[t * E + e]})) + bias[e]);
      std::sort(b.rbegin(), b.rend());
      if (b[0] + b[1] > best) best = b[0] + b[1], best_group = g;
    }
    std::set<int32_t> chosen(r.experts_of(t).begin(), r.experts_of(t).end());
    CHECK(chosen == std::set<int32_t>{4 * best_group, 4 * best_group + 1, 4 * best_group + 2, 4 * best_group + 3});
  }
}

TEST_CASE("deepseek gate: sigmoid scores that all underflow give finite weights") {
  const int64_t T = 3, E = 8;
  std::vector<float> logits(T * E, -200.0f);  // sigmoid(-200) is exactly 0 in fp32
  const DeepSeekGateOptions o = test::gate(2, 2, 1, 2.5f);
  const Routing r = deepseek_v3_gate(fp32_logits(logits, T, E), std::vector<float>(E, 0.0f), o);
  for (const float w : r.weight) {
    CHECK(std::isfinite(w));
    CHECK(w == 0.0f);
  }
  // All ties: the lowest group, then its lowest experts.
  CHECK(r.experts_of(0)[0] == 0);
  CHECK(r.experts_of(0)[1] == 1);
  // One token with a single non-underflowing score: its weight is route_scale.
  logits[T * E - 1] = 0.0f;
  const Routing one = deepseek_v3_gate(fp32_logits(logits, T, E), {}, o);
  CHECK(one.experts_of(2)[0] == 7);
  CHECK(one.weights_of(2)[0] == Approx(2.5f).epsilon(1e-6));
}

TEST_CASE("deepseek gate: identical results for any thread count, bad options rejected") {
  const int64_t T = 700, E = 64;
  const auto logits = test::normal_logits(T, E, 1.0f, 13);
  DeepSeekGateOptions o = test::gate(6, 8, 3);
  o.threads = 1;
  const std::vector<float> bias(E, 0.01f);
  const Routing one = deepseek_v3_gate(fp32_logits(logits, T, E), bias, o);
  for (unsigned threads : {2u, 5u}) {
    o.threads = threads;
    const Routing many = deepseek_v3_gate(fp32_logits(logits, T, E), bias, o);
    CHECK(many.expert == one.expert);
    CHECK(many.weight == one.weight);
  }
  o.k = 25;  // 3 kept groups of 8 hold 24 experts
  CHECK_THROWS_AS(deepseek_v3_gate(fp32_logits(logits, T, E), bias, o), RouterError);
  o.k = 6;
  o.groups = 7;
  CHECK_THROWS_AS(deepseek_v3_gate(fp32_logits(logits, T, E), bias, o), RouterError);
  o.groups = 8;
  CHECK_THROWS_AS(deepseek_v3_gate(fp32_logits(logits, T, E), std::vector<float>(3), o), RouterError);
}

TEST_CASE("deepseek route: mean normalised score, balance loss and z-loss as computed in double here") {
  const int T = 300, E = 16;
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0.0f, 2.0f);
  std::vector<float> logits(static_cast<std::size_t>(T * E));
  for (float& v : logits) v = dist(rng);
  DeepSeekGateOptions o;
  o.k = 4;
  o.groups = 4;
  o.topk_groups = 2;
  o.aux_coef = 0.01f;
  o.z_coef = 0.5f;
  const DeepSeekGateResult r = deepseek_v3_route(fp32_logits(logits, T, E), {}, o);

  std::vector<double> mean(E, 0.0);
  double z = 0.0;
  for (int t = 0; t < T; ++t) {
    const float* row = logits.data() + t * E;
    double total = 0.0, mx = row[0], sum_exp = 0.0;
    for (int e = 0; e < E; ++e) total += 1.0 / (1.0 + std::exp(-double{row[e]}));
    for (int e = 0; e < E; ++e) mean[e] += (1.0 / (1.0 + std::exp(-double{row[e]}))) / total / T;
    for (int e = 1; e < E; ++e) mx = std::max(mx, double{row[e]});
    for (int e = 0; e < E; ++e) sum_exp += std::exp(row[e] - mx);
    z += std::pow(mx + std::log(sum_exp), 2) / T;
  }
  std::vector<int64_t> load(E, 0);
  for (const int32_t e : r.routing.expert) ++load[static_cast<std::size_t>(e)];
  double aux = 0.0;
  for (int e = 0; e < E; ++e) {
    CHECK(r.mean_prob[static_cast<std::size_t>(e)] == Approx(mean[e]).epsilon(1e-5));
    CHECK(r.load[static_cast<std::size_t>(e)] == load[static_cast<std::size_t>(e)]);
    aux += double(load[e]) / double(T * o.k) * mean[e];
  }
  CHECK(r.aux_loss == Approx(0.01 * E * aux).epsilon(1e-5));
  CHECK(r.z_loss == Approx(0.5 * z).epsilon(1e-5));
  // The routing is the gate's.
  CHECK(r.routing.expert == deepseek_v3_gate(fp32_logits(logits, T, E), {}, o).expert);
  // Coefficients 0: no loss, and the z pass is skipped.
  o.aux_coef = 0.0f;
  o.z_coef = 0.0f;
  const DeepSeekGateResult quiet = deepseek_v3_route(fp32_logits(logits, T, E), {}, o);
  CHECK(quiet.aux_loss == 0.0f);
  CHECK(quiet.z_loss == 0.0f);
}
