// A tiny MoE model trained with both plugin-backed strategies attached
// (router_moe expert selection, quant_fp8 fake quantization) still learns.
#include <catch2/catch.hpp>

#include <vector>

#include "adamw.hpp"
#include "fp8_fake_quant.hpp"
#include "frugal/sdk/host.hpp"
#include "model.hpp"
#include "model_support.hpp"
#include "router_selector.hpp"

using namespace frugal_demo;

TEST_CASE("training with the router and FP8 hooks attached reduces the loss", "[demo][strategies]") {
  frugal::host::Context context;
  context.discover(FRUGAL_DISCOVER_NO_ENV);
  ModelConfig c;
  c.vocab = 256;
  c.d_model = 32;
  c.heads = 2;
  c.layers = 2;
  c.max_seq = 32;
  c.ffn_hidden = 64;
  c.moe = true;
  c.moe_options.experts = 4;
  c.moe_options.top_k = 2;
  c.seed = 3;
  Model<float> model(c);
  PluginRouter router(context.get(), c.moe_options, c.layers);
  model.set_selector(router.selector());
  Fp8QuantHooks hooks(context.get(), model);
  AdamWOptions adam;
  adam.weight_decay = 0.0;
  AdamW<float> optimizer(model.parameters(), model.gradients(), adam, model.parameter_set().decay_mask());

  auto text = [](const char* s) {
    std::vector<std::int32_t> out;
    for (; *s != 0; ++s) out.push_back(static_cast<unsigned char>(*s));
    return out;
  };
  // Two packed rows and a padded one: the hooks and the router see padding.
  const Batch batch = demo_test::pack_rows(
      {{text("the cat sat on the mat"), text("a dog")}, {text("the cat sat on the hat and")}, {text("frugal")}}, 32);
  const float first = model.forward_backward(batch);
  optimizer.step(3e-3);
  float last = first;
  for (int step = 0; step < 40; ++step) {
    last = model.forward_backward(batch);
    optimizer.step(3e-3);
  }
  INFO("loss " << first << " -> " << last);
  CHECK(first > 4.5f);  // about ln 256 at the start
  CHECK(last < 0.6f * first);
  // The router's statistics describe the last step's real tokens.
  std::size_t real = 0;
  for (const std::int32_t s : batch.segments) real += s >= 0;
  CHECK(router.last_stats(0).tokens == static_cast<std::int64_t>(real));
  const StepStats& stats = model.stats();
  REQUIRE(stats.expert_loads.size() == 2);
  std::size_t assigned = 0;
  for (const std::size_t load : stats.expert_loads[0]) assigned += load;
  CHECK(assigned + static_cast<std::size_t>(router.last_stats(0).dropped) == real * 2);
}
