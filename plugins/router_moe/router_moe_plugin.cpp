// The router_moe plugin: three router strategies over one implementation
// (plugin/router.hpp). The core checks every tensor and, on the host, the
// plan; the algorithms library (CPU) and the CUDA path do the work.
#include "frugal/sdk/router_adapter.hpp"
#include "plugin/router.hpp"

namespace {

using frugal::router::plugin::RouterKind;
using frugal::router::plugin::Strategy;

// Routes and moves read the bias under a lock that update and import take;
// every result depends on the inputs and that bias alone (the CPU paths
// give the same bytes for any thread count).
constexpr uint32_t kFlags = FRUGAL_STRATEGY_THREAD_SAFE | FRUGAL_STRATEGY_DETERMINISTIC;

constexpr frugal_strategy_desc kTopk = frugal::sdk::router_strategy<Strategy<RouterKind::topk_softmax>>(
    "topk_softmax",
    "softmax top-k router with the Switch/GShard load-balancing loss and the z-loss (options experts, k, "
    "capacity_factor, drop_policy, renormalize, aux_coef, z_coef, threads)",
    kFlags);

constexpr frugal_strategy_desc kDeepSeek = frugal::sdk::router_strategy<Strategy<RouterKind::deepseek_v3>>(
    "deepseek_v3",
    "DeepSeek-V3 gate: sigmoid/softmax scores, aux-loss-free selection bias, group-limited routing (options "
    "experts, k, groups, topk_groups, score, route_scale, gamma, capacity_factor, drop_policy, aux_coef, z_coef, "
    "threads)",
    kFlags);

constexpr frugal_strategy_desc kExpertChoice = frugal::sdk::router_strategy<Strategy<RouterKind::expert_choice>>(
    "expert_choice", "expert-choice routing: each expert takes its best tokens (options experts, capacity_factor, threads)",
    kFlags);

constexpr const frugal_strategy_desc* kStrategies[] = {&kTopk, &kDeepSeek, &kExpertChoice};

constexpr frugal_plugin_desc kPlugin{
    sizeof(frugal_plugin_desc),
    FRUGAL_ABI_VERSION_MAJOR,
    FRUGAL_ABI_VERSION_MINOR,
    "router_moe",
    FRUGAL_VERSION_STRING,
    "frugal",
    "MIT",
    sizeof(kStrategies) / sizeof(kStrategies[0]),
    kStrategies,
    "Mixture-of-experts routing: top-k softmax, DeepSeek-V3 and expert choice, capacity and drops, dispatch plans, "
    "permute and combine",
    nullptr,
    nullptr,
};

}  // namespace

extern "C" FRUGAL_PLUGIN_EXPORT frugal_error* frugal_plugin_init_v1(const frugal_host_api* host,
                                                                    const frugal_plugin_desc** out) {
  return frugal::sdk::hand_over_descriptor(host, out, kPlugin);
}
