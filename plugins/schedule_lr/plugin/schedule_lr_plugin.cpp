// The schedule_lr plugin: descriptor and entry point.
#include "algorithms/lr_schedules.hpp"
#include "frugal/sdk/plugin_declaration.hpp"
#include "frugal/sdk/schedule_adapter.hpp"
#include "option_decls.hpp"

namespace {

using namespace frugal::schedule_lr;
using frugal::sdk::schedule_strategy;

// Pure functions of their options and the step: safe to call concurrently.
constexpr uint32_t kFlags = FRUGAL_STRATEGY_THREAD_SAFE | FRUGAL_STRATEGY_DETERMINISTIC;

constexpr frugal_strategy_desc kStrategies[] = {
    schedule_strategy<Constant>("constant", "fixed learning rate (option: lr)", kFlags, &kConstantOptions.header),
    schedule_strategy<LinearWarmup>("linear_warmup", "linear warm-up to lr, then constant (options: lr, warmup_steps)",
                                    kFlags, &kLinearWarmupOptions.header),
    schedule_strategy<WarmupCosine>(
        "cosine", "linear warm-up then cosine decay to min_lr (options: lr, min_lr, warmup_steps, total_steps)", kFlags,
        &kCosineOptions.header),
    schedule_strategy<WarmRestarts>(
        "sgdr",
        "warm restarts: cycles of cosine or linear decay, optionally growing and decaying "
        "(options: lr, min_lr, warmup_steps, cycle_steps, cycle_mult, restart_decay, shape)",
        kFlags, &kSgdrOptions.header),
    schedule_strategy<WarmupStableDecay>(
        "wsd",
        "warm-up, stable peak, decay over the last steps "
        "(options: lr, min_lr, warmup_steps, total_steps, decay_steps | decay_fraction, decay_shape)",
        kFlags, &kWsdOptions.header),
};

constexpr frugal_plugin_desc kPlugin = frugal::sdk::declare_plugin<kStrategies>({
    .name = "schedule_lr",
    .version = FRUGAL_VERSION_STRING,
    .vendor = "frugal",
    .license = "MIT",
    .description =
        "Learning-rate schedules: constant, linear warm-up, warm-up + cosine decay, warm restarts (SGDR), WSD",
});

}  // namespace

FRUGAL_SDK_PLUGIN_ENTRY(kPlugin)
