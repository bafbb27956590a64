#include "plugin/option_decls.hpp"

#include "frugal/sdk/option_decl.hpp"
#include "plugin/config.hpp"
#include "recipes/delayed_scaling.hpp"

namespace frugal::quant::plugin {
namespace {

using sdk::bool_option;
using sdk::comm_option;
using sdk::int_option;
using sdk::string_option;

// Several options apply to one format or recipe only, and config.cpp
// refuses them elsewhere (an ignored option is a silent mistake); each
// doc line says where it applies, and a default is the value used there.
// recipe has no declared default: it depends on the format.
constexpr frugal_option_decl kQuantFp8[] = {
    string_option("format", "element format: FP8 e4m3 or e5m2, symmetric int8, or int8_asym with a zero point")
        .default_value("e4m3")
        .choices("e4m3|e5m2|int8|int8_asym"),
    string_option("recipe",
                  "scaling recipe; delayed when absent for fp8, current for int8 (which allows "
                  "current and per_channel only)")
        .choices("delayed|current|per_channel|block|mx"),
    bool_option("saturate", "clamp values beyond the format's range to its largest finite value (fp8 formats only)")
        .default_value("true"),
    int_option("history", "amaxes kept by delayed scaling (recipe delayed only)")
        .default_value("1024")
        .range(1.0, static_cast<double>(recipes::kMaxHistory)),
    string_option("reduction", "amax that sets the scale: the history's max or its most recent (recipe delayed only)")
        .default_value("max")
        .choices("max|most_recent"),
    int_option("margin", "scale by 2^-margin below the largest that fits (recipe delayed only)")
        .default_value("0")
        .range(static_cast<double>(recipes::kMinMargin), static_cast<double>(recipes::kMaxMargin)),
    string_option("axis", "one scale per row or per column (recipe per_channel only)")
        .default_value("rows")
        .choices("rows|cols"),
    int_option("block_rows", "block height, 1 or 128 (recipe block only)").default_value("1"),
    int_option("block_cols", "block width, 128 (recipe block only)").default_value("128").range(128.0, 128.0),
    int_option("threads", "CPU threads, 0 = the hardware's concurrency")
        .default_value("0")
        .range(0.0, static_cast<double>(kMaxThreads)),
    comm_option("amax_comm",
                "the group over which the amax is reduced (max) before it enters the history (recipe delayed) "
                "or sets the scale (recipe current); every rank of the group must make the same quantize calls "
                "in the same order (a host comm; not int8_asym)"),
};

}  // namespace

const frugal_strategy_options_ext kQuantFp8Options = sdk::DeclaredOptions<kQuantFp8>::ext;

}  // namespace frugal::quant::plugin
