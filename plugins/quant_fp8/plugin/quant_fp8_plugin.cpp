// The quant_fp8 plugin: one quantizer strategy, "quant_fp8", whose options
// pick the element format (e4m3, e5m2, int8, int8_asym) and the scaling
// recipe. The core checks every tensor and scale shape; plugin/ adapts the
// ops (CPU) and cuda (device) libraries to the vtable.
#include "frugal/sdk/plugin_declaration.hpp"
#include "frugal/sdk/quantizer_adapter.hpp"
#include "plugin/option_decls.hpp"
#include "plugin/quantizer.hpp"

namespace {

// Instances serialise their delayed-scaling state under a mutex, and every
// operation's result depends on its inputs and that state alone (the CPU
// ops give the same bytes for any thread count).
constexpr uint32_t kFlags = FRUGAL_STRATEGY_THREAD_SAFE | FRUGAL_STRATEGY_DETERMINISTIC;

constexpr frugal_strategy_desc kStrategies[] = {frugal::sdk::quantizer_strategy<frugal::quant::plugin::Fp8Quantizer>(
    "quant_fp8",
    "FP8 (E4M3, E5M2) and INT8 quantization with delayed, current, per-channel, block and MX scaling "
    "(options format, recipe, saturate, history, reduction, margin, axis, block_rows, block_cols, threads, amax_comm)",
    kFlags, &frugal::quant::plugin::kQuantFp8Options.header)};

constexpr frugal_plugin_desc kPlugin = frugal::sdk::declare_plugin<kStrategies>({
    .name = "quant_fp8",
    .version = FRUGAL_VERSION_STRING,
    .vendor = "frugal",
    .license = "MIT",
    .description =
        "FP8/INT8 quantization: bit-exact conversions, scaling recipes, fake-quant, cast-transpose and an FP8 GEMM",
});

}  // namespace

FRUGAL_SDK_PLUGIN_ENTRY(kPlugin)
