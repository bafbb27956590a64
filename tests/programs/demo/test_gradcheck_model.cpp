// Gradient check of the whole model (dense and MoE), in double: every
// parameter against finite differences of loss + aux_loss.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "gradcheck.hpp"
#include "model.hpp"
#include "model_support.hpp"

using namespace frugal_demo;

namespace {

ModelConfig tiny_config(bool moe) {
  ModelConfig c;
  c.vocab = 11;
  c.d_model = 8;
  c.heads = 2;
  c.layers = 2;
  c.max_seq = 10;  // rows 8 and 9 stay unused by the batch
  c.ffn_hidden = 6;
  c.moe = moe;
  c.moe_options.experts = 3;
  c.moe_options.top_k = 2;
  c.moe_options.capacity_factor = 1.0;
  c.moe_options.aux_coef = 0.2;
  c.init_std = 0.4;  // well away from the near-linear regime, so every path matters
  return c;
}

Batch random_batch(std::mt19937_64& rng, std::size_t vocab) {
  std::uniform_int_distribution<std::int32_t> tok(0, static_cast<std::int32_t>(vocab) - 1);
  auto seq = [&](std::size_t n) {
    std::vector<std::int32_t> s(n);
    for (auto& t : s) t = tok(rng);
    return s;
  };
  // Row 0: two packed sequences and padding; row 1: one full sequence.
  return demo_test::pack_rows({{seq(3), seq(4)}, {seq(8)}}, 8);
}

void check_model(bool moe) {
  const std::uint64_t seed = demo_test::fresh_seed();
  CAPTURE(seed, moe);
  std::mt19937_64 rng(seed);
  ModelConfig config = tiny_config(moe);
  config.seed = seed;
  Model<double> model(config);
  const Batch batch = random_batch(rng, config.vocab);

  // MoE: freeze the expert choice of the unperturbed point. The objective
  // is then the smooth function whose gradient backward() computes (the
  // choice and the load fractions are constants there); near-ties in the
  // top-k cannot flip a choice under the +-eps perturbations.
  std::vector<std::vector<std::int32_t>> frozen;
  bool recording = true;
  if (moe) {
    model.set_selector([&](const RouteRequest<double>& req, std::span<std::int32_t> choice) {
      if (recording) {
        select_topk_with_capacity(req, choice);
        frozen.emplace_back(choice.begin(), choice.end());
      } else {
        const auto& saved = frozen.at(static_cast<std::size_t>(req.layer));
        std::copy(saved.begin(), saved.end(), choice.begin());
      }
    });
  }
  const double loss = model.forward_backward(batch);
  recording = false;
  const StepStats stats = model.stats();
  CHECK(stats.tokens == 2 + 3 + 7);
  CHECK(std::isfinite(loss));
  if (moe) {
    REQUIRE(frozen.size() == config.layers);
    CHECK(stats.aux_loss > 0);
    REQUIRE(stats.expert_loads.size() == config.layers);
  }

  const std::vector<double> grads(model.gradients().begin(), model.gradients().end());
  const auto objective = [&] {
    const StepStats& s = model.forward(batch);
    return s.loss + s.aux_loss;
  };
  for (std::size_t i = 0; i < model.parameter_set().entries().size(); ++i) {
    const ParamEntry& e = model.parameter_set().entries()[i];
    if (e.name == "pos_emb") {
      // Rows past the longest sequence are never used: gradient exactly 0.
      for (std::size_t j = 8 * config.d_model; j < e.size; ++j) REQUIRE(grads[e.offset + j] == 0.0);
    }
    demo_test::require_gradient(
        demo_test::check_gradient(model.parameter_set().view(i).value,
                                  std::span<const double>(grads).subspan(e.offset, e.size), objective),
        e.name);
  }
}

}  // namespace

TEST_CASE("gradient check: whole model, dense FFN", "[demo][gradcheck]") { check_model(false); }

TEST_CASE("gradient check: whole model, MoE FFN", "[demo][gradcheck]") { check_model(true); }
