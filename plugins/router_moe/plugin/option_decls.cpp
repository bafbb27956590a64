#include "plugin/option_decls.hpp"

#include "algorithms/bias_balancer.hpp"
#include "frugal/sdk/option_decl.hpp"
#include "plugin/config.hpp"

namespace frugal::router::plugin {
namespace {

using sdk::bool_option;
using sdk::comm_option;
using sdk::double_option;
using sdk::int_option;
using sdk::string_option;

// Bounds that depend on another option (k <= experts, groups dividing
// experts, topk_groups <= groups) are config.cpp's checks, named in the
// doc lines and not declared: a declared bound holds on its own.
constexpr frugal_option_decl kExperts =
    int_option("experts", "number of experts").required().range(1.0, static_cast<double>(BiasBalancer::kMaxExperts));
constexpr frugal_option_decl kThreads = int_option("threads", "CPU threads, 0 = the hardware's concurrency")
                                            .default_value("0")
                                            .range(0.0, static_cast<double>(kMaxThreads));
constexpr frugal_option_decl kCapacityFactor =
    double_option("capacity_factor", "expert capacity as a multiple of tokens x k / experts; 0 = dropless")
        .default_value("0")
        .range(0.0, kMaxFactor);
constexpr frugal_option_decl kDropPolicy =
    string_option("drop_policy",
                  "which assignments an expert over capacity keeps: highest probability or first "
                  "in token order (only with capacity_factor > 0)")
        .default_value("probability")
        .choices("probability|position");

constexpr frugal_option_decl kEpComm =
    comm_option("ep_comm",
                "expert-parallel group: the experts split over its ranks, route / ep_dispatch / ep_combine "
                "collective over it (host tensors)");

// A loss weight: aux_coef and z_coef, whose defaults differ by strategy.
constexpr frugal_option_decl loss_weight(const char* name, const char* doc, const char* default_value) {
  return double_option(name, doc).default_value(default_value).range(0.0, kMaxLossWeight);
}

constexpr frugal_option_decl kTopkSoftmax[] = {
    kExperts,
    int_option("k", "experts each token is routed to, at most experts").default_value("2").min(1.0),
    kCapacityFactor,
    kDropPolicy,
    bool_option("renormalize", "rescale each token's k weights to sum to 1").default_value("false"),
    loss_weight("aux_coef", "weight of the Switch/GShard load-balancing loss", "0.01"),
    loss_weight("z_coef", "weight of the router z-loss", "0.001"),
    kThreads,
    kEpComm,
};

constexpr frugal_option_decl kDeepSeekV3[] = {
    kExperts,
    int_option("k", "experts each token is routed to, at most those of the topk_groups kept groups")
        .default_value("8")
        .min(1.0),
    kCapacityFactor,
    kDropPolicy,
    string_option("score", "expert score function").default_value("sigmoid").choices("sigmoid|softmax"),
    int_option("groups", "expert groups, dividing experts").default_value("1").min(1.0),
    int_option("topk_groups", "groups each token may use, at most groups; all groups when absent").min(1.0),
    double_option("route_scale", "factor applied to the routing weights")
        .default_value("1")
        .range(kMinPositive, kMaxFactor),
    double_option("gamma", "speed of the aux-loss-free bias update").default_value("0.001").range(0.0, kMaxGamma),
    loss_weight("aux_coef", "weight of the load-balancing loss, 0 = aux-loss-free", "0"),
    loss_weight("z_coef", "weight of the router z-loss", "0"),
    kThreads,
    kEpComm,
};

constexpr frugal_option_decl kExpertChoice[] = {
    kExperts,
    double_option("capacity_factor", "tokens each expert takes, as a multiple of tokens / experts")
        .default_value("1")
        .range(kMinPositive, kMaxFactor),
    kThreads,
    kEpComm,
};

}  // namespace

const frugal_strategy_options_ext kTopkSoftmaxOptions = sdk::DeclaredOptions<kTopkSoftmax>::ext;
const frugal_strategy_options_ext kDeepSeekV3Options = sdk::DeclaredOptions<kDeepSeekV3>::ext;
const frugal_strategy_options_ext kExpertChoiceOptions = sdk::DeclaredOptions<kExpertChoice>::ext;

}  // namespace frugal::router::plugin
