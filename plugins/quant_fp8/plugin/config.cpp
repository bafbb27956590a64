#include "plugin/config.hpp"

#include <initializer_list>
#include <string>
#include <utility>

#include "recipes/limits.hpp"

namespace frugal::quant::plugin {
namespace {

using sdk::PluginError;

[[noreturn]] void bad_option(const std::string& what) { throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, what); }

bool is_fp8(ops::ElementFormat f) { return f == ops::ElementFormat::e4m3 || f == ops::ElementFormat::e5m2; }

}  // namespace

const char* format_name(ops::ElementFormat format) {
  switch (format) {
    case ops::ElementFormat::e4m3: return "e4m3";
    case ops::ElementFormat::e5m2: return "e5m2";
    case ops::ElementFormat::int8: return "int8";
    case ops::ElementFormat::int8_asym: break;
  }
  return "int8_asym";
}

const char* recipe_name(ops::Recipe recipe) {
  switch (recipe) {
    case ops::Recipe::delayed: return "delayed";
    case ops::Recipe::current: return "current";
    case ops::Recipe::per_channel: return "per_channel";
    case ops::Recipe::block: return "block";
    case ops::Recipe::mx: break;
  }
  return "mx";
}

QuantConfig read_config(const sdk::Options& options) {
  using ops::ElementFormat;
  using ops::Recipe;
  options.check_known({"format", "recipe", "saturate", "history", "reduction", "margin", "axis", "block_rows",
                       "block_cols", "threads", "amax_comm"});
  QuantConfig c;
  c.format = options.get_choice<ElementFormat>("format", "e4m3",
                                               {{"e4m3", ElementFormat::e4m3},
                                                {"e5m2", ElementFormat::e5m2},
                                                {"int8", ElementFormat::int8},
                                                {"int8_asym", ElementFormat::int8_asym}});
  const bool fp8 = is_fp8(c.format);
  const std::string fmt = format_name(c.format);
  if (fp8) {
    c.recipe = options.get_choice<Recipe>("recipe", "delayed",
                                          {{"delayed", Recipe::delayed},
                                           {"current", Recipe::current},
                                           {"per_channel", Recipe::per_channel},
                                           {"block", Recipe::block},
                                           {"mx", Recipe::mx}});
    c.saturate = options.get_bool("saturate", true);
  } else {
    // INT8 scales come from the tensor itself, per tensor or per channel
    // (the serving recipes); delayed, block and E8M0 scales are FP8 recipes.
    c.recipe = options.get_choice<Recipe>("recipe", "current",
                                          {{"current", Recipe::current}, {"per_channel", Recipe::per_channel}},
                                          " with format " + fmt);
    options.reject_set({"saturate"}, "applies to the fp8 formats (e4m3, e5m2); format is " + fmt);
  }
  const std::string why = std::string("does not apply to recipe ") + recipe_name(c.recipe);
  if (c.recipe == Recipe::delayed) {
    c.delayed.history = static_cast<std::size_t>(
        options.get_int_in("history", 1024, 1, static_cast<std::int64_t>(recipes::kMaxHistory)));
    c.delayed.reduction = options.get_choice<recipes::AmaxReduction>(
        "reduction", "max",
        {{"max", recipes::AmaxReduction::max}, {"most_recent", recipes::AmaxReduction::most_recent}});
    c.delayed.margin = static_cast<int>(options.get_int_in("margin", 0, recipes::kMinMargin, recipes::kMaxMargin));
    c.delayed.fp8_max = c.format == ElementFormat::e4m3 ? recipes::kE4M3Max : recipes::kE5M2Max;
  } else {
    options.reject_set({"history", "reduction", "margin"}, why + " (delayed only)");
  }
  if (c.recipe == Recipe::per_channel) {
    c.per_column = options.get_choice<bool>("axis", "rows", {{"rows", false}, {"cols", true}});
  } else {
    options.reject_set({"axis"}, why + " (per_channel only)");
  }
  if (c.recipe == Recipe::block) {
    // DeepSeek-V3's two shapes: 1 x 128 for activations, 128 x 128 for weights.
    const std::int64_t rows = options.get_int("block_rows", 1);
    const std::int64_t cols = options.get_int("block_cols", 128);
    if (rows != 1 && rows != 128)
      bad_option("option 'block_rows' must be 1 or 128 (blocks are 1x128 or 128x128); got " + std::to_string(rows));
    // The range [128, 128] is declared, so outside it is OUT_OF_RANGE as from the core.
    if (cols != 128)
      throw PluginError(FRUGAL_ERR_OUT_OF_RANGE,
                        "option 'block_cols' must be 128 (blocks are 1x128 or 128x128); got " + std::to_string(cols));
    c.block_rows = static_cast<std::int32_t>(rows);
    c.block_cols = static_cast<std::int32_t>(cols);
  } else {
    options.reject_set({"block_rows", "block_cols"}, why + " (block only)");
  }
  // One scale per tensor is what ranks must agree on; per-channel, block
  // and MX scales come from values this rank holds (README, "Across ranks").
  if (c.recipe != Recipe::delayed && c.recipe != Recipe::current) {
    options.reject_set({"amax_comm"}, why +
                                          " (delayed and current only: per-channel, block and MX scales "
                                          "come from the values on this rank)");
  } else if (c.format == ElementFormat::int8_asym) {
    options.reject_set({"amax_comm"},
                       "does not apply to format int8_asym (its scales come from the tensor's "
                       "min and max, not its amax)");
  } else {
    c.amax_comm = options.get_comm("amax_comm");
  }
  c.threads = static_cast<unsigned>(options.get_int_in("threads", 0, 0, kMaxThreads));
  return c;
}

frugal_quant_layout layout_of(const QuantConfig& c) {
  frugal_quant_layout l{};
  l.struct_size = sizeof(l);
  l.dtype = c.format == ops::ElementFormat::e4m3   ? FRUGAL_DTYPE_FLOAT8_E4M3FN
            : c.format == ops::ElementFormat::e5m2 ? FRUGAL_DTYPE_FLOAT8_E5M2
                                                   : FRUGAL_DTYPE_INT8;
  l.scale_dtype = FRUGAL_DTYPE_FLOAT32;
  switch (c.recipe) {
    case ops::Recipe::delayed: l.scaling_mode = FRUGAL_SCALING_DELAYED; break;
    case ops::Recipe::current: l.scaling_mode = FRUGAL_SCALING_CURRENT; break;
    case ops::Recipe::per_channel:
      l.scaling_mode = FRUGAL_SCALING_PER_CHANNEL;
      l.block_rows = c.per_column ? 0 : 1;
      l.block_cols = c.per_column ? 1 : 0;
      break;
    case ops::Recipe::block:
      l.scaling_mode = FRUGAL_SCALING_BLOCK;
      l.block_rows = c.block_rows;
      l.block_cols = c.block_cols;
      break;
    case ops::Recipe::mx:
      l.scaling_mode = FRUGAL_SCALING_MX;
      l.block_rows = 1;
      l.block_cols = 32;
      l.scale_dtype = FRUGAL_DTYPE_FLOAT8_E8M0FNU;
      break;
  }
  if (c.format == ops::ElementFormat::int8_asym) l.flags = FRUGAL_QUANT_LAYOUT_ZERO_POINT;
  return l;
}

}  // namespace frugal::quant::plugin
