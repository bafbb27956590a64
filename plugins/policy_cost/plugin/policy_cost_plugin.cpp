// The policy_cost plugin: the run scheduler's cost policies
// (FRUGAL_KIND_POLICY), each a plain class in plugin/ over the arithmetic
// in algorithms/, adapted by sdk/policy_adapter.hpp.
#include "frugal/sdk/plugin_declaration.hpp"
#include "frugal/sdk/policy_adapter.hpp"
#include "plugin/checkpoint_cadence.hpp"
#include "plugin/early_stop.hpp"
#include "plugin/option_decls.hpp"
#include "plugin/plateau_autoscaler.hpp"
#include "plugin/spot_phase.hpp"

namespace {

namespace pp = frugal::policy::plugin;
using frugal::sdk::policy_strategy;

// Every answer depends on the options and the records seen (the state a
// blob carries) alone. Not thread-safe: a scheduler calls an instance from
// one thread at a time, and the instances keep no lock.
constexpr uint32_t kFlags = FRUGAL_STRATEGY_DETERMINISTIC;

constexpr frugal_strategy_desc kStrategies[] = {
    policy_strategy<pp::CheckpointCadence>(
        "checkpoint_cadence",
        "when to checkpoint: heartbeat timer, full by steps or seconds, Young/Daly interval from measured cost and "
        "MTBF, emergency checkpoint on a preemption notice (options heartbeat_interval_s, full_interval_steps, "
        "full_interval_s, young_daly, checkpoint_cost_s, mtbf_s, notice_safety)",
        kFlags, &pp::kCadenceOptions.header),
    policy_strategy<pp::SpotPhase>(
        "spot_phase",
        "spot while warming up, reserved once the loss descends steadily (Mann-Kendall + Theil-Sen), reserved for a "
        "cooldown on price or preemption spikes (options window, sample_interval_s, z_threshold, max_noise, "
        "confirmations, min_spot_s, reserved_price, max_price_ratio, max_preemptions, preemption_window_s, "
        "cooldown_s)",
        kFlags, &pp::kSpotPhaseOptions.header),
    policy_strategy<pp::PlateauAutoscaler>(
        "plateau_autoscaler",
        "more nodes when the windowed loss plateaus, fewer when it falls fast, with a cooldown (options min_nodes, "
        "max_nodes, window_s, plateau_improvement, fast_improvement, scale_factor, cooldown_s)",
        kFlags, &pp::kAutoscalerOptions.header),
    policy_strategy<pp::EarlyStop>(
        "early_stop",
        "stop when the eval or train loss has not improved for `patience` evaluations (options metric, patience, "
        "min_delta, mode, min_step)",
        kFlags, &pp::kEarlyStopOptions.header),
};

constexpr frugal_plugin_desc kPlugin = frugal::sdk::declare_plugin<kStrategies>({
    .name = "policy_cost",
    .version = FRUGAL_VERSION_STRING,
    .vendor = "frugal",
    .license = "MIT",
    .description = "Cost policies for the run scheduler: checkpoint cadence, spot/reserved phases, loss-plateau "
                   "autoscaling, early stopping",
});

}  // namespace

FRUGAL_SDK_PLUGIN_ENTRY(kPlugin)
