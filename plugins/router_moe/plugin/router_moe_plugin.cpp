// The router_moe plugin: three router strategies over one implementation
// (plugin/router.hpp). The core checks every tensor and, on the host, the
// plan; the algorithms library (CPU) and the CUDA path do the work.
#include "frugal/sdk/plugin_declaration.hpp"
#include "frugal/sdk/router_adapter.hpp"
#include "plugin/option_decls.hpp"
#include "plugin/router.hpp"

namespace {

using frugal::router::plugin::RouterKind;
using frugal::router::plugin::Strategy;
using frugal::sdk::router_strategy;

// Routes and moves read the bias under a lock that update and import take;
// every result depends on the inputs and that bias alone (the CPU paths
// give the same bytes for any thread count). With ep_comm, route,
// ep_dispatch and ep_combine are collectives: each runs under the router's
// group lock, and every rank must issue them in the same order.
constexpr uint32_t kFlags = FRUGAL_STRATEGY_THREAD_SAFE | FRUGAL_STRATEGY_DETERMINISTIC;

constexpr frugal_strategy_desc kStrategies[] = {
    router_strategy<Strategy<RouterKind::topk_softmax>>(
        "topk_softmax",
        "softmax top-k router with the Switch/GShard load-balancing loss and the z-loss (options experts, k, "
        "capacity_factor, drop_policy, renormalize, aux_coef, z_coef, threads, ep_comm)",
        kFlags, &frugal::router::plugin::kTopkSoftmaxOptions.header),
    router_strategy<Strategy<RouterKind::deepseek_v3>>(
        "deepseek_v3",
        "DeepSeek-V3 gate: sigmoid/softmax scores, aux-loss-free selection bias, group-limited routing (options "
        "experts, k, groups, topk_groups, score, route_scale, gamma, capacity_factor, drop_policy, aux_coef, z_coef, "
        "threads, ep_comm)",
        kFlags, &frugal::router::plugin::kDeepSeekV3Options.header),
    router_strategy<Strategy<RouterKind::expert_choice>>(
        "expert_choice",
        "expert-choice routing: each expert takes its best tokens (options experts, capacity_factor, threads, "
        "ep_comm)",
        kFlags, &frugal::router::plugin::kExpertChoiceOptions.header),
};

constexpr frugal_plugin_desc kPlugin = frugal::sdk::declare_plugin<kStrategies>({
    .name = "router_moe",
    .version = FRUGAL_VERSION_STRING,
    .vendor = "frugal",
    .license = "MIT",
    .description = "Mixture-of-experts routing: top-k softmax, DeepSeek-V3 and expert choice, capacity and drops, "
                   "dispatch plans, permute and combine",
});

}  // namespace

FRUGAL_SDK_PLUGIN_ENTRY(kPlugin)
