// The MoE layers' expert selection backed by the router_moe plugin
// ("topk_softmax"): one frugal_router per MoE layer picks each token's
// top-k experts and applies the capacity limit. The model keeps computing
// the combine weights and the load-balancing loss from the gate logits
// (its backward needs them); the plugin decides who goes where.
//
// Capacity: the plugin sizes it from the tokens it is given, C = max(1,
// ceil(T * k * capacity_factor / E)); only active (non-padding) tokens are
// passed, so C equals the model's RouteRequest.capacity. Drops: with
// DropPolicy::position an overfull expert keeps its first assignments in
// token then rank order (exactly the model's CPU reference); with
// DropPolicy::probability (the plugin's default, and the demo's) it keeps
// its highest-probability assignments (ties: lower token, then lower
// slot), so a confident choice is never dropped for an earlier, weaker one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ffn_moe.hpp"
#include "frugal/frugal.h"
#include "frugal/sdk/host.hpp"

namespace frugal_demo {

class PluginRouter {
 public:
  enum class DropPolicy { probability, position };

  // layers: the number of MoE layers (RouteRequest.layer indexes them).
  // Throws std::runtime_error with frugal's message when a router cannot
  // be created (plugin missing, bad options).
  PluginRouter(frugal_context* context, const MoeOptions& options, std::size_t layers,
               DropPolicy drop = DropPolicy::probability);
  PluginRouter(const PluginRouter&) = delete;
  PluginRouter& operator=(const PluginRouter&) = delete;

  // A selector for Model::set_selector; refers to this router, which must
  // outlive its use. Throws std::out_of_range for a layer it has no router
  // for, std::runtime_error when routing fails.
  ExpertSelector<float> selector();

  [[nodiscard]] std::size_t layers() const { return layers_.size(); }
  // Layer `layer`'s router (owned here, alive as long as this object), for
  // registering its state with a checkpoint engine
  // (frugal_ckpt_register_router); std::out_of_range past layers().
  [[nodiscard]] frugal_router* router(std::size_t layer) const { return layers_.at(layer).router.get(); }
  // "moe_router.<layer>": the name its state is saved under.
  static std::string layer_name(std::size_t layer);
  // The plugin's statistics of layer `layer`'s last routing (max/mean
  // load, dropped fraction, aux loss as the plugin computes it).
  [[nodiscard]] const frugal_route_stats& last_stats(std::size_t layer) const { return layers_.at(layer).stats; }
  // The capacity the plugin applied in layer `layer`'s last routing.
  [[nodiscard]] std::int64_t last_capacity(std::size_t layer) const { return layers_.at(layer).capacity; }

 private:
  // One layer's router and its plan buffers, reused while the token count
  // stays the same.
  struct Layer {
    frugal::host::RouterPtr router;
    std::vector<std::size_t> active_rows;  // the request's token of each routed row
    std::vector<float> logits;             // [active, E], active tokens only
    std::vector<std::int32_t> expert_ids;
    std::vector<float> weights;
    std::vector<std::uint8_t> dropped;
    std::vector<std::int64_t> slot_row, expert_offsets, expert_demand, row_token, token_offsets, token_rows;
    std::vector<float> row_weight, mean_prob, losses;
    frugal_route_stats stats{};
    std::int64_t capacity = 0;
  };

  void route(const RouteRequest<float>& request, std::span<std::int32_t> choice);

  std::size_t experts_;
  std::size_t k_;
  std::vector<Layer> layers_;
};

}  // namespace frugal_demo
