// What the tests of the demo's plugin-backed strategies share: a context
// with the built-in plugins, a small MoE model config, and the quantizers'
// states as the checkpoint engine saves them.
#pragma once

#include <cstdint>
#include <vector>

#include "fp8_fake_quant.hpp"
#include "frugal/sdk/host.hpp"
#include "model.hpp"

namespace demo_test {

// The built-in plugins only (FRUGAL_PLUGIN_PATH ignored).
inline frugal::host::Context plugin_context() {
  frugal::host::Context context;
  context.discover(FRUGAL_DISCOVER_NO_ENV);
  return context;
}

// d_model 16, 2 heads, 4 experts top-2, `layers` blocks.
inline frugal_demo::ModelConfig small_moe_config(std::size_t layers = 2) {
  frugal_demo::ModelConfig c;
  c.vocab = 256;
  c.d_model = 16;
  c.heads = 2;
  c.layers = layers;
  c.max_seq = 16;
  c.ffn_hidden = 32;
  c.moe = true;
  c.moe_options.experts = 4;
  c.moe_options.top_k = 2;
  return c;
}

// Every hook's quantizer state (amax history), through the C API, as the
// checkpoint engine saves it (frugal_ckpt_register_quantizer).
inline std::vector<std::vector<std::uint8_t>> quantizer_states(const frugal_demo::Fp8QuantHooks& hooks) {
  std::vector<std::vector<std::uint8_t>> out;
  for (std::size_t i = 0; i < hooks.hooked(); ++i) {
    std::size_t size = 0;
    frugal::host::check(frugal_quantizer_export_state(hooks.quantizer(i), nullptr, 0, &size));
    std::vector<std::uint8_t> bytes(size);
    if (size > 0) frugal::host::check(frugal_quantizer_export_state(hooks.quantizer(i), bytes.data(), size, &size));
    out.push_back(std::move(bytes));
  }
  return out;
}

}  // namespace demo_test
