// Fp8QuantHooks: which tensors are hooked, each hook's output against a
// separate quant_fp8 quantizer, the E4M3 error bound, states, eval freeze.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

#include "fp8_fake_quant.hpp"
#include "frugal/sdk/host.hpp"
#include "model.hpp"
#include "strategy_support.hpp"

using namespace frugal_demo;

namespace {

using demo_test::plugin_context;
using demo_test::quantizer_states;

ModelConfig moe_config() { return demo_test::small_moe_config(); }

std::vector<float> random_values(std::size_t n, std::uint64_t seed, float stddev) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, stddev);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

// dequantize(quantize(x)) by a quantizer of the same options, outside the hooks.
class ReferenceQuantizer {
 public:
  explicit ReferenceQuantizer(frugal_context* context) {
    frugal::host::Options o;
    o.set("format", "e4m3").set("recipe", "delayed").set("history", 16);
    q_ = frugal::host::make_quantizer(context, "quant_fp8", o.get());
  }
  std::vector<float> fake(const std::vector<float>& x, std::size_t rows, std::size_t cols, float* scale_inv) {
    std::vector<std::uint8_t> codes(x.size());
    std::vector<float> out(x.size());
    const std::array<std::int64_t, 2> shape{static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols)};
    const std::array<std::int64_t, 1> one{1};
    auto tensor = [](void* data, std::int32_t dtype, const std::int64_t* s, std::int32_t ndim) {
      frugal_tensor t{};
      t.struct_size = sizeof(t);
      t.data = data;
      t.dtype = dtype;
      t.ndim = ndim;
      t.device.type = FRUGAL_DEVICE_CPU;
      t.shape = s;
      return t;
    };
    std::vector<float> in = x;
    const frugal_tensor input = tensor(in.data(), FRUGAL_DTYPE_FLOAT32, shape.data(), 2);
    frugal_tensor output = tensor(codes.data(), FRUGAL_DTYPE_FLOAT8_E4M3FN, shape.data(), 2);
    const frugal_tensor fake_t = tensor(out.data(), FRUGAL_DTYPE_FLOAT32, shape.data(), 2);
    const frugal_tensor scale_inv_t = tensor(scale_inv, FRUGAL_DTYPE_FLOAT32, one.data(), 1);
    frugal_quant_meta meta{};
    meta.struct_size = sizeof(meta);
    meta.scaling_mode = FRUGAL_SCALING_DELAYED;
    meta.scale_inv = &scale_inv_t;
    output.quant = &meta;
    frugal_quantize_args args{};
    args.struct_size = sizeof(args);
    args.input = &input;
    args.output = &output;
    args.fake = &fake_t;
    frugal::host::check(frugal_quantizer_quantize(q_.get(), &args));
    return out;
  }

 private:
  frugal::host::QuantizerPtr q_;
};

std::vector<float> apply(FakeQuant& hook, const std::vector<float>& x, std::size_t rows, std::size_t cols) {
  std::vector<float> out(x.size());
  hook.apply(x, out, rows, cols, QuantRole::activation);
  return out;
}

}  // namespace

TEST_CASE("fp8 hooks: every Linear's weight and input except the head and the MoE gates", "[demo][strategies]") {
  const auto context = plugin_context();
  Model<float> model(moe_config());
  Fp8QuantHooks hooks(context.get(), model);
  // Per layer: qkv, out and 4 experts x (up, down) = 10 Linears, 2 tensors each.
  CHECK(hooks.hooked() == 40);
  const auto names = hooks.names();
  CHECK(names.front() == "layers.0.attn.qkv.weight");
  CHECK(names[1] == "layers.0.attn.qkv.input");
  CHECK(std::find(names.begin(), names.end(), "layers.1.moe.expert.3.down.input") != names.end());
  CHECK(hooks.kept_full_precision() == std::vector<std::string>{"layers.0.moe.gate", "layers.1.moe.gate", "head"});
}

TEST_CASE("fp8 hooks: output equals a separate quantizer's dequantize(quantize(x)), within E4M3's bound",
          "[demo][strategies]") {
  const auto context = plugin_context();
  Model<float> model(moe_config());
  Fp8QuantHooks hooks(context.get(), model);
  ReferenceQuantizer reference(context.get());
  FakeQuant& hook = hooks.hook(5);
  const std::size_t rows = 24, cols = 16;
  for (std::uint64_t step = 0; step < 4; ++step) {
    const std::vector<float> x = random_values(rows * cols, 100 + step, 0.5f * static_cast<float>(step + 1));
    float scale_inv = 0;
    const std::vector<float> want = reference.fake(x, rows, cols, &scale_inv);
    const std::vector<float> got = apply(hook, x, rows, cols);
    INFO("step " << step << ", scale_inv " << scale_inv);
    CHECK(got == want);  // bit for bit: the same plugin, the same recipe state
    std::size_t changed = 0, clipped = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      changed += got[i] != x[i];
      if (std::fabs(x[i]) / scale_inv > 448.0f) {  // delayed scaling: this step's amax may exceed the history's
        ++clipped;
        CHECK(std::fabs(got[i]) == 448.0f * scale_inv);
        continue;
      }
      // 3 mantissa bits: round to nearest is within 2^-4 relative, or half
      // the subnormal spacing (2^-10 after scaling) near zero.
      CHECK(std::fabs(got[i] - x[i]) <= std::max(std::fabs(x[i]) * 0.0625f, scale_inv * 0.0009765625f));
    }
    CHECK(changed > x.size() / 2);  // it really quantizes
    if (step > 0) CHECK(clipped < x.size() / 10);
  }
}

TEST_CASE("fp8 hooks: an imported state gives identical later outputs; frozen hooks record nothing",
          "[demo][strategies]") {
  const auto context = plugin_context();
  Model<float> model_a(moe_config());
  Model<float> model_b(moe_config());
  Fp8QuantHooks a(context.get(), model_a);
  Fp8QuantHooks b(context.get(), model_b);
  const std::size_t rows = 8, cols = 16;
  for (std::size_t i = 0; i < a.hooked(); ++i)
    apply(a.hook(i), random_values(rows * cols, i, 3.0f), rows, cols);  // builds amax histories
  const auto states = quantizer_states(a);
  const std::vector<float> probe = random_values(rows * cols, 999, 1.0f);
  const std::vector<float> fresh = apply(b.hook(3), probe, rows, cols);  // b without the state
  for (std::size_t i = 0; i < b.hooked(); ++i)
    frugal::host::check(frugal_quantizer_import_state(b.quantizer(i), states[i].data(), states[i].size()));
  CHECK(quantizer_states(b) == states);
  for (std::size_t i = 0; i < a.hooked(); ++i) {
    INFO("hook " << i);
    CHECK(apply(a.hook(i), probe, rows, cols) == apply(b.hook(i), probe, rows, cols));
  }
  CHECK(apply(a.hook(3), probe, rows, cols) != fresh);  // the state matters

  const auto before = quantizer_states(a);
  a.set_frozen(true);
  apply(a.hook(0), random_values(rows * cols, 5, 50.0f), rows, cols);
  CHECK(quantizer_states(a) == before);
  a.set_frozen(false);
  apply(a.hook(0), random_values(rows * cols, 5, 50.0f), rows, cols);
  CHECK(quantizer_states(a) != before);
}

TEST_CASE("fp8 hooks: one quantizer per hooked tensor, each its own", "[demo][strategies]") {
  const auto context = plugin_context();
  Model<float> model(moe_config());
  Fp8QuantHooks hooks(context.get(), model);
  REQUIRE(hooks.hooked() == 40);
  std::set<frugal_quantizer*> distinct;
  for (std::size_t i = 0; i < hooks.hooked(); ++i) distinct.insert(hooks.quantizer(i));
  CHECK(distinct.size() == hooks.hooked());
  CHECK(distinct.count(nullptr) == 0);
  CHECK_THROWS_AS(hooks.quantizer(hooks.hooked()), std::out_of_range);
  ModelConfig dense = moe_config();
  dense.moe = false;
  Model<float> dense_model(dense);
  Fp8QuantHooks dense_hooks(context.get(), dense_model);
  CHECK(dense_hooks.hooked() == 16);  // qkv, out, up, down per layer
}
