// MoeRouter's expert-parallel operations (frugal/router.h, "Expert
// parallelism"): route over the group with the decisions of one router on
// the group's concatenated tokens (algorithms/group_route.hpp), and the
// row exchanges around the host's experts (algorithms/group_moves.hpp).
#include <string>

#include "algorithms/deepseek_gate.hpp"
#include "algorithms/group_moves.hpp"
#include "algorithms/group_route.hpp"
#include "algorithms/losses.hpp"
#include "algorithms/topk_softmax.hpp"
#include "plugin/plan_views.hpp"
#include "plugin/router.hpp"

namespace frugal::router::plugin {
namespace {

using sdk::PluginError;

template <class T>
std::span<T> optional_span(const frugal_tensor* t) {
  if (t == nullptr) return {};
  return std::span<T>(static_cast<T*>(t->data), static_cast<std::size_t>(t->shape[0]));
}

// The algorithms' RouterError is the caller's bad input.
template <class Body>
void as_plugin_errors(const char* what, Body&& body) {
  try {
    body();
  } catch (const RouterError& e) {
    throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, std::string(what) + ": " + e.what());
  }
}

void require_host(const frugal_tensor& t, const char* what) {
  if (t.device.type != FRUGAL_DEVICE_CPU)
    throw PluginError(FRUGAL_ERR_UNSUPPORTED,
                      std::string(what) + ": tensors off the host; expert parallelism runs on host tensors for now");
}

// What one rank's local routing gives the group step.
struct LocalRoute {
  Routing routing;               // token choice
  ExpertChoiceScores scores;     // expert choice
  std::vector<double> prob_sum;  // [E]
  double lse_square_sum = 0.0;
  float aux_coef = 0.0f;
  float z_coef = 0.0f;
};

}  // namespace

void MoeRouter::route_group(const frugal_route_call& args) const {
  const PlanSpans out = plan_spans(*args.plan);
  if (out.ep_tokens.empty() || out.ep_rows.empty())
    throw PluginError(
        FRUGAL_ERR_FAILED_PRECONDITION,
        "route: the plan has no ep_tokens / ep_rows; expert parallelism needs a core of ABI 2.4 or later");
  const Logits logits = logits_of(*args.logits);
  const int64_t T = logits.rows();
  const int64_t E = config_.experts;
  const bool expert_choice = config_.kind == RouterKind::expert_choice;

  // Route this rank's tokens. A failure is still announced in the gather
  // below (tokens -1), so the other ranks fail at once instead of waiting
  // out the deadline for a rank that will never join.
  LocalRoute local;
  std::string failure;
  try {
    switch (config_.kind) {
      case RouterKind::topk_softmax: {
        TopkSoftmaxResult r = topk_softmax(logits, config_.topk);
        local.routing = std::move(r.routing);
        local.prob_sum = std::move(r.prob_sum);
        local.lse_square_sum = r.lse_square_sum;
        local.aux_coef = config_.topk.aux_coef;
        local.z_coef = config_.topk.z_coef;
        break;
      }
      case RouterKind::deepseek_v3: {
        DeepSeekGateResult r = deepseek_v3_route(logits, bias_snapshot(), config_.deepseek);
        local.routing = std::move(r.routing);
        local.prob_sum = std::move(r.prob_sum);
        local.lse_square_sum = r.lse_square_sum;
        local.aux_coef = config_.deepseek.aux_coef;
        local.z_coef = config_.deepseek.z_coef;
        break;
      }
      case RouterKind::expert_choice:
        local.scores = expert_choice_scores(logits, config_.threads);
        local.prob_sum = local.scores.prob_sum;
        break;
    }
  } catch (const RouterError& e) {
    failure = e.what();
  }

  const std::lock_guard lock(group_mutex_);
  HostGroupComm& comm = *group_;
  const ExpertSlots by_expert = expert_choice || !failure.empty() ? ExpertSlots{} : slots_by_expert(local.routing);
  const std::vector<int64_t> no_demand(static_cast<std::size_t>(E), 0);
  const std::vector<double> no_sums(static_cast<std::size_t>(E), 0.0);
  const GroupTotals g =
      gather_totals(comm, failure.empty() ? T : -1, by_expert.demand.empty() ? no_demand : by_expert.demand,
                    failure.empty() ? local.prob_sum : no_sums, local.lse_square_sum);
  if (!failure.empty()) throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "route: " + failure);
  for (int64_t r = 0; r < g.ranks; ++r)
    if (g.tokens[static_cast<std::size_t>(r)] < 0)
      throw PluginError(FRUGAL_ERR_CANCELLED, "route: rank " + std::to_string(r) +
                                                  " of the ep_comm group could not route its tokens this step (its "
                                                  "error says why); no rank routed");

  DispatchPlan plan;
  float aux = 0.0f;
  float z = 0.0f;
  const std::vector<float> mean = mean_prob_of(g.prob_sum, g.group_tokens);
  as_plugin_errors("route", [&] {
    if (expert_choice) {
      const int64_t C = expert_choice_capacity(g.group_tokens, E, config_.capacity.capacity_factor);
      plan = expert_choice_plan(local.scores, group_picks(local.scores, g, C, comm, config_.threads), C);
    } else {
      plan = build_dispatch_plan(local.routing, by_expert,
                                 group_keep(local.routing, by_expert, g, config_.capacity, comm));
      plan.expert_demand = g.group_demand;
      aux = load_balancing_loss(g.group_demand, mean, local.aux_coef);
      z = z_loss_of_sum(g.lse_square_sum, g.group_tokens, local.z_coef);
    }
  });
  const std::vector<int64_t> rows = gather_rows(comm, plan.expert_counts);
  if (!expert_choice) write_routing(local.routing, out);
  write_plan(plan, mean, aux, z, out);
  std::copy(g.tokens.begin(), g.tokens.end(), out.ep_tokens.begin());
  std::copy(rows.begin(), rows.end(), out.ep_rows.begin());
}

void MoeRouter::ep_dispatch(const frugal_route_dispatch_call& args) const {
  if (!group_) throw PluginError(FRUGAL_ERR_FAILED_PRECONDITION, "ep_dispatch: the router has no ep_comm");
  require_host(*args.input, "ep_dispatch");
  const PlanSpans p = plan_spans(*args.plan);
  const GroupPlan plan{p.row_token,  p.expert_offsets, p.token_offsets, p.token_rows,
                       p.row_weight, p.ep_tokens,      p.ep_rows};
  const std::span<int64_t> offsets = optional_span<int64_t>(args.expert_offsets);
  const std::span<int64_t> row_token = optional_span<int64_t>(args.row_token);
  const std::lock_guard lock(group_mutex_);
  as_plugin_errors("ep_dispatch", [&] {
    if (args.input->dtype == FRUGAL_DTYPE_FLOAT32) {
      group_dispatch<float>(*group_, scratch_, plan, config_.experts, rows_of<const float>(*args.input),
                            rows_of<float>(*args.output), offsets, row_token, config_.threads);
    } else {
      group_dispatch<uint16_t>(*group_, scratch_, plan, config_.experts, rows_of<const uint16_t>(*args.input),
                               rows_of<uint16_t>(*args.output), offsets, row_token, config_.threads);
    }
  });
}

void MoeRouter::ep_combine(const frugal_route_move_call& args) const {
  if (!group_) throw PluginError(FRUGAL_ERR_FAILED_PRECONDITION, "ep_combine: the router has no ep_comm");
  require_host(*args.output, "ep_combine");
  const PlanSpans p = plan_spans(*args.plan);
  const GroupPlan plan{p.row_token,  p.expert_offsets, p.token_offsets, p.token_rows,
                       p.row_weight, p.ep_tokens,      p.ep_rows};
  const std::lock_guard lock(group_mutex_);
  as_plugin_errors("ep_combine", [&] {
    if (args.output->dtype == FRUGAL_DTYPE_FLOAT32) {
      group_combine<float>(*group_, scratch_, plan, config_.experts, rows_of<const float>(*args.input),
                           rows_of<float>(*args.output), config_.threads);
    } else {
      group_combine<uint16_t>(*group_, scratch_, plan, config_.experts, rows_of<const uint16_t>(*args.input),
                              rows_of<uint16_t>(*args.output), config_.threads);
    }
  });
}

}  // namespace frugal::router::plugin
