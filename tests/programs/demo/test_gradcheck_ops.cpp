// Gradient checks of each op's hand-written backward, in double, against
// finite differences of L = sum(out * R) for a random R.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "attention.hpp"
#include "cross_entropy.hpp"
#include "embedding.hpp"
#include "ffn_dense.hpp"
#include "ffn_moe.hpp"
#include "gelu.hpp"
#include "gradcheck.hpp"
#include "linear.hpp"
#include "rms_norm.hpp"

using namespace frugal_demo;
using demo_test::check_gradient;
using demo_test::fill_uniform;
using demo_test::require_gradient;
using demo_test::weighted_sum;

namespace {

// An op's parameters in one ParameterSet filled with uniform values.
struct Params {
  ParameterSet<double> set;
  std::size_t add(const std::string& name, std::size_t size) { return set.declare(name, size, true); }
  void allocate(std::mt19937_64& rng, double lo = -1.0, double hi = 1.0) {
    set.allocate();
    fill_uniform(set.values(), rng, lo, hi);
  }
  ParamView<double> view(std::size_t i) { return set.view(i); }
};

// Checks d/dx and d/dparams of L = sum(op(x) * R) (+ extra(), a loss the
// op reports itself, read after each forward); forward(x) must run the
// forward pass, backward(R) must return dx.
template <class Forward, class Backward>
void check_op(std::vector<double>& x, Params& params, std::size_t out_size, std::mt19937_64& rng, Forward forward,
              Backward backward, const std::string& what, const std::function<double()>& extra = {}) {
  std::vector<double> weights(out_size);
  fill_uniform(weights, rng);
  params.set.zero_grad();
  const std::vector<double> out = forward(x);
  REQUIRE(out.size() == out_size);
  const std::vector<double> dx = backward(weights);
  const auto objective = [&] {
    const double value = weighted_sum(forward(x), weights);
    return extra ? value + extra() : value;
  };
  if (!x.empty()) require_gradient(check_gradient(x, dx, objective), what + " d/dx");
  const std::vector<double> grads(params.set.grads().begin(), params.set.grads().end());
  for (std::size_t i = 0; i < params.set.entries().size(); ++i) {
    const ParamEntry& e = params.set.entries()[i];
    ParamView<double> v = params.view(i);
    require_gradient(check_gradient(v.value, std::span<const double>(grads).subspan(e.offset, e.size), objective),
                     what + " d/d" + e.name);
  }
}

}  // namespace

TEST_CASE("gradient check: token and position embeddings", "[demo][gradcheck]") {
  const std::uint64_t seed = demo_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  Params p;
  const std::size_t table = p.add("table", 7 * 5);
  p.allocate(rng);
  Embedding<double> emb(7, 5, p.view(table));
  std::vector<double> no_input;
  // Repeated ids (token embedding), and ids that restart at each packed
  // sequence (position embedding): both accumulate several rows into one.
  const std::vector<std::int32_t> tokens = {3, 1, 3, 6, 0, 3, 2, 1};
  const std::vector<std::int32_t> positions = {0, 1, 2, 0, 1, 0, 1, 2};
  for (const auto* ids : {&tokens, &positions}) {
    check_op(
        no_input, p, ids->size() * 5, rng, [&](const std::vector<double>&) { return emb.forward(*ids); },
        [&](const std::vector<double>& d) {
          emb.backward(d);
          return std::vector<double>{};
        },
        ids == &tokens ? "token embedding" : "position embedding");
  }
  CHECK_THROWS_AS(emb.forward(std::vector<std::int32_t>{7}), std::out_of_range);
}

TEST_CASE("gradient check: rms_norm", "[demo][gradcheck]") {
  const std::uint64_t seed = demo_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  Params p;
  const std::size_t gain = p.add("gain", 6);
  p.allocate(rng, 0.5, 1.5);
  RmsNorm<double> norm(6, p.view(gain));
  std::vector<double> x(4 * 6);
  fill_uniform(x, rng, -2, 2);
  check_op(
      x, p, x.size(), rng, [&](const std::vector<double>& in) { return norm.forward(in); },
      [&](const std::vector<double>& d) { return norm.backward(d); }, "rms_norm");
}

TEST_CASE("gradient check: linear with and without bias", "[demo][gradcheck]") {
  const std::uint64_t seed = demo_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (const bool with_bias : {true, false}) {
    Params p;
    const std::size_t w = p.add("weight", 5 * 4);
    const std::size_t b = with_bias ? p.add("bias", 5) : 0;
    p.allocate(rng);
    Linear<double> lin(4, 5, p.view(w), with_bias ? p.view(b) : ParamView<double>{});
    std::vector<double> x(3 * 4);
    fill_uniform(x, rng);
    check_op(
        x, p, 3 * 5, rng, [&](const std::vector<double>& in) { return lin.forward(in); },
        [&](const std::vector<double>& d) { return lin.backward(d); }, with_bias ? "linear+bias" : "linear");
  }
}

TEST_CASE("gradient check: gelu (tanh form)", "[demo][gradcheck]") {
  const std::uint64_t seed = demo_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  Params p;
  p.allocate(rng);
  Gelu<double> gelu;
  std::vector<double> x(40);
  fill_uniform(x, rng, -4, 4);
  check_op(
      x, p, x.size(), rng, [&](const std::vector<double>& in) { return gelu.forward(in); },
      [&](const std::vector<double>& d) { return gelu.backward(d); }, "gelu");
  // Known values: gelu(0) = 0, gelu(x) ~ x for large x, ~0 for very negative x.
  const std::vector<double> y = gelu.forward(std::vector<double>{0.0, 10.0, -10.0});
  CHECK(y[0] == 0.0);
  CHECK(y[1] == Approx(10.0));
  CHECK(std::abs(y[2]) < 1e-12);
}

TEST_CASE("gradient check: attention with packed segments and padding", "[demo][gradcheck]") {
  const std::uint64_t seed = demo_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  const std::size_t d = 8, heads = 2, rows = 2, seq = 7;
  Params p;
  const std::size_t qw = p.add("qkv.weight", 3 * d * d), qb = p.add("qkv.bias", 3 * d);
  const std::size_t ow = p.add("out.weight", d * d), ob = p.add("out.bias", d);
  p.allocate(rng, -0.6, 0.6);
  Attention<double> attn(d, heads, AttentionParams<double>{p.view(qw), p.view(qb), p.view(ow), p.view(ob)});
  // Row 0: three packed sequences then padding; row 1: one sequence, padding.
  const std::vector<std::int32_t> segments = {0, 0, 0, 1, 1, 2, -1, 0, 0, 0, 0, -1, -1, -1};
  std::vector<double> x(rows * seq * d);
  fill_uniform(x, rng);
  check_op(
      x, p, x.size(), rng, [&](const std::vector<double>& in) { return attn.forward(in, rows, seq, segments); },
      [&](const std::vector<double>& dy) { return attn.backward(dy); }, "attention");
}

TEST_CASE("gradient check: dense FFN", "[demo][gradcheck]") {
  const std::uint64_t seed = demo_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  const std::size_t d = 5, h = 7;
  Params p;
  const std::size_t uw = p.add("up.weight", h * d), ub = p.add("up.bias", h);
  const std::size_t dw = p.add("down.weight", d * h), db = p.add("down.bias", d);
  p.allocate(rng);
  FfnDense<double> ffn(d, h, FfnParams<double>{p.view(uw), p.view(ub), p.view(dw), p.view(db)});
  std::vector<double> x(4 * d);
  fill_uniform(x, rng, -2, 2);
  check_op(
      x, p, x.size(), rng, [&](const std::vector<double>& in) { return ffn.forward(in); },
      [&](const std::vector<double>& dy) { return ffn.backward(dy); }, "dense FFN");
}

TEST_CASE("gradient check: MoE FFN (experts, combine weights, gate, aux loss)", "[demo][gradcheck]") {
  const std::uint64_t seed = demo_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  const std::size_t d = 6, h = 5, experts = 4, tokens = 12;
  for (const bool renormalize : {true, false}) {
    CAPTURE(renormalize);
    MoeOptions opt;
    opt.experts = experts;
    opt.top_k = 2;
    opt.capacity_factor = 0.75;  // capacity ceil(0.75 * 22 / 4) = 5 per expert: 22 > 20 slots, drops
    opt.aux_coef = 0.3;          // large, so a wrong aux gradient shows
    opt.renormalize = renormalize;
    std::vector<std::uint8_t> active(tokens, 1);
    active[5] = 0;  // a padding token: never routed, not in the aux statistics

    // Draw until no active token has a near-tie between its k-th and
    // (k+1)-th logit, so the +-eps perturbations cannot change the choice.
    for (int attempt = 0;; ++attempt) {
      REQUIRE(attempt < 100);
      Params p;
      const std::size_t gate = p.add("gate.weight", experts * d);
      std::vector<FfnParams<double>> fp;
      std::vector<std::size_t> ids;
      for (std::size_t e = 0; e < experts; ++e) {
        const std::string n = "expert." + std::to_string(e) + ".";
        ids.push_back(p.add(n + "up.weight", h * d));
        ids.push_back(p.add(n + "up.bias", h));
        ids.push_back(p.add(n + "down.weight", d * h));
        ids.push_back(p.add(n + "down.bias", d));
      }
      p.allocate(rng);
      for (std::size_t e = 0; e < experts; ++e)
        fp.push_back({p.view(ids[4 * e]), p.view(ids[4 * e + 1]), p.view(ids[4 * e + 2]), p.view(ids[4 * e + 3])});
      FfnMoe<double> moe(d, h, opt, p.view(gate), fp);
      std::vector<double> x(tokens * d);
      fill_uniform(x, rng);

      moe.forward(x, active);
      // Margins from the gate's logits: recompute them as x W^T.
      double margin = 1e9;
      const auto w = p.view(gate).value;
      for (std::size_t t = 0; t < tokens; ++t) {
        if (active[t] == 0) continue;
        std::vector<double> l(experts, 0.0);
        for (std::size_t e = 0; e < experts; ++e)
          for (std::size_t j = 0; j < d; ++j) l[e] += x[t * d + j] * w[e * d + j];
        std::sort(l.begin(), l.end(), std::greater<>());
        margin = std::min(margin, l[1] - l[2]);
      }
      if (margin < 1e-3) continue;

      REQUIRE(moe.dropped() > 0);  // the capacity path is exercised
      const std::vector<std::int32_t> reference(moe.choices().begin(), moe.choices().end());
      for (std::size_t s = 0; s < 2; ++s) CHECK(reference[5 * 2 + s] == -1);
      std::size_t load_sum = 0;
      for (const std::size_t load : moe.loads()) {
        CHECK(load <= 5);
        load_sum += load;
      }
      CHECK(load_sum + moe.dropped() == (tokens - 1) * 2);
      CHECK(moe.aux_loss() > 0);

      std::size_t selection_changes = 0;
      check_op(
          x, p, x.size(), rng,
          [&](const std::vector<double>& in) {
            std::vector<double> y = moe.forward(in, active);
            if (!std::equal(reference.begin(), reference.end(), moe.choices().begin())) ++selection_changes;
            return y;
          },
          [&](const std::vector<double>& dy) { return moe.backward(dy); },
          renormalize ? "MoE (renormalized top-k)" : "MoE (softmax weights)", [&] { return moe.aux_loss(); });
      CHECK(selection_changes == 0);
      break;
    }
  }
}

TEST_CASE("gradient check: cross-entropy with ignored labels", "[demo][gradcheck]") {
  const std::uint64_t seed = demo_test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  const std::size_t classes = 6;
  const std::vector<std::int32_t> labels = {2, kIgnoreLabel, 0, 5, kIgnoreLabel, 3};
  std::vector<double> logits(labels.size() * classes);
  fill_uniform(logits, rng, -3, 3);
  CrossEntropy<double> ce;
  ce.forward(logits, labels, classes);
  CHECK(ce.counted() == 4);
  const std::vector<double> d = ce.backward(1.0);
  for (std::size_t c = 0; c < classes; ++c) {
    CHECK(d[1 * classes + c] == 0.0);  // ignored rows get no gradient
    CHECK(d[4 * classes + c] == 0.0);
  }
  require_gradient(check_gradient(logits, d, [&] { return ce.forward(logits, labels, classes); }), "cross-entropy");
  // All labels ignored: loss and gradient are 0, not NaN.
  const std::vector<std::int32_t> none(labels.size(), kIgnoreLabel);
  CHECK(ce.forward(logits, none, classes) == 0.0);
  for (const double v : ce.backward(1.0)) CHECK(v == 0.0);
}
