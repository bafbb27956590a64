// The schedule_lr plugin: descriptor and entry point.
#include "frugal/sdk/schedule_adapter.hpp"
#include "lr_schedules.hpp"

namespace {

using namespace frugal::schedule_lr;
using frugal::sdk::schedule_strategy;

// Pure functions of their options and the step: safe to call concurrently.
constexpr uint32_t kFlags = FRUGAL_STRATEGY_THREAD_SAFE | FRUGAL_STRATEGY_DETERMINISTIC;

constexpr frugal_strategy_desc kConstant =
    schedule_strategy<Constant>("constant", "fixed learning rate (option: lr)", kFlags);
constexpr frugal_strategy_desc kLinearWarmup = schedule_strategy<LinearWarmup>(
    "linear_warmup", "linear warm-up to lr, then constant (options: lr, warmup_steps)", kFlags);
constexpr frugal_strategy_desc kCosine = schedule_strategy<WarmupCosine>(
    "cosine", "linear warm-up then cosine decay to min_lr (options: lr, min_lr, warmup_steps, total_steps)", kFlags);

constexpr frugal_strategy_desc kWarmRestarts = schedule_strategy<WarmRestarts>(
    "sgdr",
    "warm restarts: cycles of cosine or linear decay, optionally growing and decaying "
    "(options: lr, min_lr, warmup_steps, cycle_steps, cycle_mult, restart_decay, shape)",
    kFlags);
constexpr frugal_strategy_desc kWsd = schedule_strategy<WarmupStableDecay>(
    "wsd",
    "warm-up, stable peak, decay over the last steps "
    "(options: lr, min_lr, warmup_steps, total_steps, decay_steps | decay_fraction, decay_shape)",
    kFlags);

constexpr const frugal_strategy_desc* kStrategies[] = {&kConstant, &kLinearWarmup, &kCosine, &kWarmRestarts, &kWsd};

constexpr frugal_plugin_desc kPlugin{
    sizeof(frugal_plugin_desc),
    FRUGAL_ABI_VERSION_MAJOR,
    FRUGAL_ABI_VERSION_MINOR,
    "schedule_lr",
    FRUGAL_VERSION_STRING,
    "frugal",
    "MIT",
    sizeof(kStrategies) / sizeof(kStrategies[0]),
    kStrategies,
    "Learning-rate schedules: constant, linear warm-up, warm-up + cosine decay, warm restarts (SGDR), WSD",
    nullptr,
    nullptr,
};

}  // namespace

extern "C" FRUGAL_PLUGIN_EXPORT frugal_error* frugal_plugin_init_v1(const frugal_host_api* host,
                                                                    const frugal_plugin_desc** out) {
  return frugal::sdk::hand_over_descriptor(host, out, kPlugin);
}
