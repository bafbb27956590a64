#include "plugin/config.hpp"

#include <string>

#include "algorithms/bias_balancer.hpp"

namespace frugal::router::plugin {
namespace {

using sdk::PluginError;

[[noreturn]] void bad_option(const std::string& what) { throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, what); }

// A float option: the range checks are sdk::Options' (OUT_OF_RANGE naming
// the option, the value and the range).
float float_in(const sdk::Options& options, const char* name, double fallback, double lo, double hi) {
  return static_cast<float>(options.get_double_in(name, fallback, lo, hi));
}

// capacity_factor and drop_policy of a token-choice router: no factor (or
// 0) is dropless, and a policy then means nothing.
CapacityOptions read_capacity(const sdk::Options& options) {
  CapacityOptions c;
  // 0 is dropless, so the range is [0, kMaxFactor].
  const double factor = options.get_double_in("capacity_factor", 0.0, 0.0, kMaxFactor);
  if (factor == 0.0) {
    options.reject_set({"drop_policy"}, "needs a capacity: set capacity_factor > 0 (0 routes dropless)");
    c.policy = DropPolicy::dropless;
    return c;
  }
  c.capacity_factor = factor;
  c.policy = options.get_choice<DropPolicy>(
      "drop_policy", "probability",
      {{"probability", DropPolicy::by_probability}, {"position", DropPolicy::by_position}});
  return c;
}

}  // namespace

RouterConfig read_config(RouterKind kind, const sdk::Options& options) {
  RouterConfig c;
  c.kind = kind;
  switch (kind) {
    case RouterKind::topk_softmax:
      options.check_known({"experts", "k", "capacity_factor", "drop_policy", "renormalize", "aux_coef", "z_coef",
                           "threads", "ep_comm"});
      break;
    case RouterKind::deepseek_v3:
      options.check_known({"experts", "k", "capacity_factor", "drop_policy", "score", "groups", "topk_groups",
                           "route_scale", "gamma", "aux_coef", "z_coef", "threads", "ep_comm"});
      break;
    case RouterKind::expert_choice: options.check_known({"experts", "capacity_factor", "threads", "ep_comm"}); break;
  }
  options.require("experts");
  c.experts = options.get_int_in("experts", 0, 1, BiasBalancer::kMaxExperts);
  c.threads = static_cast<unsigned>(options.get_int_in("threads", 0, 0, kMaxThreads));

  if (kind == RouterKind::expert_choice) {
    // Zhou et al. use c = 2; 1 gives every expert exactly its share.
    c.capacity.capacity_factor = options.get_double_in("capacity_factor", 1.0, kMinPositive, kMaxFactor);
    c.capacity.policy = DropPolicy::dropless;
    return c;
  }
  const int64_t default_k = kind == RouterKind::deepseek_v3 ? 8 : 2;
  if (!options.has("k") && default_k > c.experts)
    bad_option("option 'k' defaults to " + std::to_string(default_k) + ", more than the " + std::to_string(c.experts) +
               " experts; set it");
  c.k = options.get_int_in("k", default_k, 1, c.experts);
  c.capacity = read_capacity(options);

  if (kind == RouterKind::topk_softmax) {
    c.topk.k = c.k;
    c.topk.renormalize = options.get_bool("renormalize", false);
    // Switch Transformer's alpha = 0.01 and ST-MoE's z-loss weight 0.001.
    c.topk.aux_coef = float_in(options, "aux_coef", 0.01, 0.0, kMaxLossWeight);
    c.topk.z_coef = float_in(options, "z_coef", 0.001, 0.0, kMaxLossWeight);
    c.topk.threads = c.threads;
    return c;
  }
  DeepSeekGateOptions& d = c.deepseek;
  d.k = c.k;
  d.score = options.get_choice<ScoreFunction>(
      "score", "sigmoid", {{"sigmoid", ScoreFunction::sigmoid}, {"softmax", ScoreFunction::softmax}});
  d.groups = options.get_int_in("groups", 1, 1, c.experts);
  if (c.experts % d.groups != 0)
    bad_option("option 'groups' (" + std::to_string(d.groups) + ") must divide the " + std::to_string(c.experts) +
               " experts");
  // Without topk_groups every group stays eligible (no group limit).
  d.topk_groups = options.get_int_in("topk_groups", d.groups, 1, d.groups);
  const int64_t reachable = d.topk_groups * (c.experts / d.groups);
  if (c.k > reachable)
    bad_option("option 'k' (" + std::to_string(c.k) + ") exceeds the " + std::to_string(reachable) +
               " experts of the topk_groups kept groups");
  d.route_scale = float_in(options, "route_scale", 1.0, kMinPositive, kMaxFactor);
  // DeepSeek-V3: bias update speed 0.001, balance-loss alpha 0.0001 (here
  // 0 by default: aux-loss-free unless asked).
  c.gamma = float_in(options, "gamma", 0.001, 0.0, kMaxGamma);
  d.aux_coef = float_in(options, "aux_coef", 0.0, 0.0, kMaxLossWeight);
  d.z_coef = float_in(options, "z_coef", 0.0, 0.0, kMaxLossWeight);
  d.threads = c.threads;
  return c;
}

frugal_route_layout layout_of(const RouterConfig& c) {
  frugal_route_layout l{};
  l.struct_size = sizeof(l);
  l.experts = static_cast<int32_t>(c.experts);
  if (c.kind == RouterKind::expert_choice) {
    l.choice = FRUGAL_ROUTER_EXPERT_CHOICE;
    l.drop_policy = FRUGAL_ROUTER_DROPLESS;
    l.capacity_factor = c.capacity.capacity_factor;
    return l;
  }
  l.choice = FRUGAL_ROUTER_TOKEN_CHOICE;
  l.top_k = static_cast<int32_t>(c.k);
  switch (c.capacity.policy) {
    case DropPolicy::dropless: l.drop_policy = FRUGAL_ROUTER_DROPLESS; break;
    case DropPolicy::by_probability: l.drop_policy = FRUGAL_ROUTER_DROP_BY_PROBABILITY; break;
    case DropPolicy::by_position: l.drop_policy = FRUGAL_ROUTER_DROP_BY_POSITION; break;
  }
  l.capacity_factor = c.capacity.policy == DropPolicy::dropless ? 0.0 : c.capacity.capacity_factor;
  if (c.kind == RouterKind::deepseek_v3) l.flags = FRUGAL_ROUTE_LAYOUT_BIAS;
  return l;
}

}  // namespace frugal::router::plugin
