// quant_fp8's options, validated once at creation, and the layout they
// imply (frugal_quant_layout: element dtype, scaling mode, block extents,
// scale dtype, zero point).
#pragma once

#include <cstdint>

#include "frugal/quantizer_vtable.h"
#include "frugal/sdk/plugin_support.hpp"
#include "ops/quant_op.hpp"
#include "recipes/delayed_scaling.hpp"

namespace frugal::quant::plugin {

struct QuantConfig {
  ops::ElementFormat format = ops::ElementFormat::e4m3;
  ops::Recipe recipe = ops::Recipe::delayed;
  bool saturate = true;
  recipes::DelayedScalingConfig delayed;  // recipe delayed only
  bool per_column = false;                // per_channel: axis cols
  std::int32_t block_rows = 1;            // recipe block only
  std::int32_t block_cols = 128;
  unsigned threads = 0;  // CPU; 0 = the hardware's concurrency
  // Recipes delayed and current (not int8_asym): the group the amax is
  // reduced (max) over, or null. Held by the core for the instance's
  // lifetime (frugal_host_api.option_get_comm).
  frugal_comm* amax_comm = nullptr;
};

// The most CPU threads an instance may ask for (option "threads").
inline constexpr std::int64_t kMaxThreads = 65536;

// Reads and checks every option (sdk::PluginError naming the option and
// what it allows: OUT_OF_RANGE for a value outside its range,
// INVALID_ARGUMENT otherwise; declarations in option_decls.cpp). Options
// that do not apply to the chosen format or recipe are errors too: a
// silently ignored option is a misconfiguration nobody notices.
[[nodiscard]] QuantConfig read_config(const sdk::Options& options);

// The layout, with block extents as the ABI writes them (0 = the whole dimension).
[[nodiscard]] frugal_quant_layout layout_of(const QuantConfig& config);

// Names for messages.
[[nodiscard]] const char* format_name(ops::ElementFormat format);
[[nodiscard]] const char* recipe_name(ops::Recipe recipe);

}  // namespace frugal::quant::plugin
