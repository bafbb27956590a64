// The packing mask, position resets, AdamW against a hand computation,
// the straight-through fake-quant hook, training sanity in float and
// independence of the thread count.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "adamw.hpp"
#include "attention.hpp"
#include "gradcheck.hpp"
#include "linear.hpp"
#include "model.hpp"
#include "model_support.hpp"
#include "tensor_math.hpp"

using namespace frugal_demo;

namespace {

ModelConfig small_config(bool moe) {
  ModelConfig c;
  c.vocab = 32;
  c.d_model = 16;
  c.heads = 2;
  c.layers = 2;
  c.max_seq = 16;
  c.ffn_hidden = 32;
  c.moe = moe;
  c.moe_options.experts = 4;
  c.moe_options.top_k = 2;
  c.seed = 7;
  return c;
}

// Restores the process-wide thread count when a test ends.
struct ThreadCountGuard {
  int saved = num_threads();
  ThreadCountGuard(const ThreadCountGuard&) = delete;
  ThreadCountGuard& operator=(const ThreadCountGuard&) = delete;
  ThreadCountGuard() = default;
  ~ThreadCountGuard() { set_num_threads(saved); }
};

}  // namespace

TEST_CASE("attention mask: another segment's tokens never change this segment's outputs", "[demo][mask]") {
  const std::size_t d = 8, heads = 2, seq = 9;
  ParameterSet<double> ps;
  const std::size_t qw = ps.declare("qkv.w", 3 * d * d, true), qb = ps.declare("qkv.b", 3 * d, false);
  const std::size_t ow = ps.declare("out.w", d * d, true), ob = ps.declare("out.b", d, false);
  ps.allocate();
  std::mt19937_64 rng(11);
  demo_test::fill_uniform(ps.values(), rng);
  Attention<double> attn(d, heads, AttentionParams<double>{ps.view(qw), ps.view(qb), ps.view(ow), ps.view(ob)});
  const std::vector<std::int32_t> segments = {0, 0, 0, 1, 1, 1, 1, 2, -1};
  std::vector<double> x(seq * d);
  demo_test::fill_uniform(x, rng);
  const std::vector<double> before = attn.forward(x, 1, seq, segments);
  for (const double v : before) REQUIRE(std::isfinite(v));  // padding attends to itself: no NaN
  // Change token 1 (segment 0) and token 8 (padding): segments 1 and 2
  // (tokens 3..7) must be bit-identical; token 0 (before the change, same
  // segment) too, by causality.
  for (std::size_t j = 0; j < d; ++j) {
    x[1 * d + j] += 0.5;
    x[8 * d + j] -= 0.25;
  }
  const std::vector<double> after = attn.forward(x, 1, seq, segments);
  for (std::size_t t : {0, 3, 4, 5, 6, 7})
    for (std::size_t j = 0; j < d; ++j) REQUIRE(after[t * d + j] == before[t * d + j]);
  bool changed = false;
  for (std::size_t j = 0; j < d; ++j) changed = changed || after[2 * d + j] != before[2 * d + j];
  CHECK(changed);  // token 2 does see token 1
}

TEST_CASE("packing: a sequence's loss is the same alone, packed after another, or next to a changed one",
          "[demo][mask]") {
  Model<float> model(small_config(false));
  const std::vector<std::int32_t> a = {5, 9, 2, 7, 1, 30};
  const std::vector<std::int32_t> other = {3, 4, 8, 8, 21};
  std::vector<std::int32_t> other_changed = other;
  other_changed[2] = 17;
  // Only `a` carries labels in every layout, so the mean loss is a's loss.
  auto only_a = [&](Batch b, std::size_t offset) {
    for (std::size_t i = 0; i < b.labels.size(); ++i)
      if (i < offset || i >= offset + a.size()) b.labels[i] = kIgnoreLabel;
    return b;
  };
  const Batch alone = only_a(demo_test::pack_rows({{a}}, 16), 0);
  const Batch after_other = only_a(demo_test::pack_rows({{other, a}}, 16), other.size());
  const Batch after_changed = only_a(demo_test::pack_rows({{other_changed, a}}, 16), other.size());
  const Batch before_other = only_a(demo_test::pack_rows({{a, other_changed}}, 16), 0);
  CHECK(after_other.positions[other.size()] == 0);  // positions restart per sequence
  CHECK(after_other.segments[other.size()] == 1);
  const float l_alone = static_cast<float>(model.forward(alone).loss);
  CHECK(model.forward(after_other).tokens == a.size() - 1);
  CHECK(static_cast<float>(model.forward(after_other).loss) == l_alone);
  CHECK(static_cast<float>(model.forward(after_changed).loss) == l_alone);
  CHECK(static_cast<float>(model.forward(before_other).loss) == l_alone);
}

TEST_CASE("AdamW: two steps match a hand computation (bias correction, decoupled decay, clipping)", "[demo][adamw]") {
  std::vector<double> params = {0.5, -1.0, 2.0};
  std::vector<double> grads = {0.3, -4.0, 0.0};
  AdamWOptions opt;
  opt.beta1 = 0.9;
  opt.beta2 = 0.99;
  opt.eps = 1e-8;
  opt.weight_decay = 0.1;
  opt.clip_norm = 2.0;                               // the gradient norm is 4.011: clipped by 2 / 4.011
  const std::vector<std::uint8_t> mask = {1, 1, 0};  // no decay on the third
  AdamW<double> adam(params, grads, opt, mask);

  std::vector<double> p = params, m(3, 0.0), v(3, 0.0);
  for (int t = 1; t <= 2; ++t) {
    if (t == 2) grads = {-0.1, 0.2, 0.5};  // under the clip norm: unchanged
    const double norm = std::sqrt(grads[0] * grads[0] + grads[1] * grads[1] + grads[2] * grads[2]);
    const double lr = t == 1 ? 0.01 : 0.02;
    CHECK(adam.step(lr) == Approx(norm).epsilon(1e-15));
    const double clip = norm > 2.0 ? 2.0 / norm : 1.0;
    for (std::size_t i = 0; i < 3; ++i) {
      const double g = grads[i] * clip;
      m[i] = 0.9 * m[i] + 0.1 * g;
      v[i] = 0.99 * v[i] + 0.01 * g * g;
      const double m_hat = m[i] / (1 - std::pow(0.9, t));
      const double v_hat = v[i] / (1 - std::pow(0.99, t));
      p[i] -= lr * (mask[i] ? 0.1 * p[i] : 0.0);
      p[i] -= lr * m_hat / (std::sqrt(v_hat) + 1e-8);
      CHECK(params[i] == Approx(p[i]).epsilon(1e-12));
      CHECK(adam.m()[i] == Approx(m[i]).epsilon(1e-12));
      CHECK(adam.v()[i] == Approx(v[i]).epsilon(1e-12));
    }
  }
  CHECK(adam.steps() == 2);
  CHECK(adam.state().size() == 6);
}

TEST_CASE("fake-quant hook: forward sees the quantized weight, backward is straight-through", "[demo][quant]") {
  struct RoundToHalves final : FakeQuant {
    int calls = 0;
    void apply(std::span<const float> in, std::span<float> out, std::size_t, std::size_t, QuantRole) override {
      ++calls;
      for (std::size_t i = 0; i < in.size(); ++i) out[i] = std::round(in[i] * 2.0f) / 2.0f;
    }
  };
  ParameterSet<float> ps;
  const std::size_t w = ps.declare("w", 2 * 3, true);
  ps.allocate();
  const std::vector<float> weights = {0.2f, 0.8f, -0.7f, 1.1f, -0.1f, 0.4f};
  std::copy(weights.begin(), weights.end(), ps.values().begin());
  Linear<float> lin(3, 2, ps.view(w), {});
  RoundToHalves quant;
  lin.set_fake_quant(&quant, nullptr);
  const std::vector<float> x = {1.0f, 2.0f, 3.0f};
  const std::vector<float> y = lin.forward(x);
  CHECK(quant.calls == 1);
  // Quantized rows: {0, 1, -0.5} and {1, 0, 0.5}.
  CHECK(y[0] == 0.0f + 2.0f - 1.5f);
  CHECK(y[1] == 1.0f + 0.0f + 1.5f);
  const std::vector<float> dx = lin.backward(std::vector<float>{1.0f, -1.0f});
  // dW = dy^T x lands on the master weight unchanged; dx uses the weight
  // the forward used.
  const std::vector<float> expect_dw = {1, 2, 3, -1, -2, -3};
  for (std::size_t i = 0; i < 6; ++i) CHECK(ps.grads()[i] == expect_dw[i]);
  CHECK(dx[0] == -1.0f);
  CHECK(dx[1] == 1.0f);
  CHECK(dx[2] == -1.0f);
  for (std::size_t i = 0; i < 6; ++i) CHECK(ps.values()[i] == weights[i]);  // master weight untouched
  lin.set_fake_quant(nullptr, nullptr);
  CHECK(lin.forward(x)[0] == Approx(0.2f + 1.6f - 2.1f));
}

namespace {

// Byte-level batches of a short repeated text: rows of 16 tokens, two
// packed sequences per row, ids folded into a vocab of 32.
Batch text_batch(std::size_t step) {
  static const std::string text = "the cat sat on the mat. the dog sat on the log. ";
  std::vector<std::vector<std::vector<std::int32_t>>> rows;
  for (std::size_t r = 0; r < 4; ++r) {
    std::vector<std::vector<std::int32_t>> row;
    for (const std::size_t len : {9, 7}) {
      std::vector<std::int32_t> s;
      const std::size_t start = (step * 13 + r * 29 + len * 5) % text.size();
      for (std::size_t i = 0; i < len; ++i)
        s.push_back(static_cast<std::int32_t>(text[(start + i) % text.size()] % 32));
      row.push_back(std::move(s));
    }
    rows.push_back(std::move(row));
  }
  return demo_test::pack_rows(rows, 16);
}

std::vector<float> train(bool moe, std::size_t steps, std::vector<float>* final_params = nullptr) {
  Model<float> model(small_config(moe));
  AdamWOptions opt;
  opt.clip_norm = 1.0;
  AdamW<float> adam(model.parameters(), model.gradients(), opt, model.parameter_set().decay_mask());
  std::vector<float> losses;
  for (std::size_t s = 0; s < steps; ++s) {
    losses.push_back(model.forward_backward(text_batch(s)));
    adam.step(1e-2);
  }
  if (final_params) final_params->assign(model.parameters().begin(), model.parameters().end());
  return losses;
}

}  // namespace

TEST_CASE("training sanity: the loss on a repeated text falls clearly in 100 steps", "[demo][train]") {
  for (const bool moe : {false, true}) {
    CAPTURE(moe);
    const std::vector<float> losses = train(moe, 100);
    const float first = std::accumulate(losses.begin(), losses.begin() + 5, 0.0f) / 5.0f;
    const float last = std::accumulate(losses.end() - 10, losses.end(), 0.0f) / 10.0f;
    INFO("step 0 " << losses[0] << ", first 5 steps " << first << ", last 10 steps " << last);
    CHECK(losses[0] > 3.2f);  // ~ln(32) = 3.47 at init
    CHECK(last < 0.6f * first);
  }
}

TEST_CASE("threads: 1 and 2 threads give bit-identical training", "[demo][threads]") {
  ThreadCountGuard guard;
  // Large enough that parallel_for really splits the work.
  ModelConfig c = small_config(true);
  c.d_model = 32;
  c.ffn_hidden = 64;
  std::vector<std::vector<float>> results;
  for (const int threads : {1, 2}) {
    set_num_threads(threads);
    Model<float> model(c);
    AdamW<float> adam(model.parameters(), model.gradients(), AdamWOptions{}, model.parameter_set().decay_mask());
    for (std::size_t s = 0; s < 3; ++s) {
      Batch b = text_batch(s);
      model.forward_backward(b);
      adam.step(1e-2);
    }
    results.emplace_back(model.parameters().begin(), model.parameters().end());
  }
  REQUIRE(results[0].size() == results[1].size());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < results[0].size(); ++i) differing += results[0][i] != results[1][i] ? 1 : 0;
  CHECK(differing == 0);

  // parallel_for itself: every index exactly once, whatever the split.
  set_num_threads(2);
  std::vector<int> hits(1000, 0);
  parallel_for(hits.size(), 1 << 20, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) ++hits[i];
  });
  for (const int h : hits) REQUIRE(h == 1);
}
