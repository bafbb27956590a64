// The object behind frugal_router: a plugin instance, its checked layout,
// and the calls that validate hosts' tensors before the plugin sees them
// (and, on the host, the plan it wrote after). Internal to libfrugal.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "frugal/router.h"
#include "loaded_plugin.hpp"
#include "router/router_shape.hpp"
#include "strategy_instance.hpp"

namespace frugal::routing {

// One expert-parallel exchange's sizes (frugal_route_ep_shape).
struct EpShape {
  int32_t rank = 0, ranks = 0, first_expert = 0, local_experts = 0;
  int64_t group_tokens = 0, token_offset = 0, sent_rows = 0, received_rows = 0;
};

class RouterCore {
 public:
  RouterCore(std::shared_ptr<LoadedPlugin> plugin, const StrategyRecord& record, const std::string& strategy);

  // Creates the plugin instance and reads and checks its layout.
  void create_instance(const frugal_options* options);

  [[nodiscard]] const frugal_route_layout& layout() const noexcept { return layout_; }
  [[nodiscard]] PlanShape plan_shape(int64_t tokens) const { return routing::plan_shape(layout_, tokens); }
  void route(const frugal_route_args& args);
  void permute(const frugal_route_move_args& args);
  void combine(const frugal_route_move_args& args);
  void update(const frugal_tensor* expert_load);
  [[nodiscard]] frugal_route_stats stats(const frugal_route_plan* plan) const;
  // Expert parallelism (router_ep.cpp). ep_shape_of reads and checks the
  // plan's ep members; `tokens` >= 0 must match this rank's entry.
  [[nodiscard]] EpShape ep_shape_of(const frugal_route_plan* plan, int64_t tokens) const;
  void ep_dispatch(const frugal_route_dispatch_args& args);
  void ep_combine(const frugal_route_move_args& args);
  void export_state(void* buffer, std::size_t capacity, std::size_t* size) {
    instance_.export_state(buffer, capacity, size);
  }
  void import_state(const void* data, std::size_t size) { instance_.import_state(data, size); }

 private:
  enum class Move { permute, combine };
  void move(const frugal_route_move_args& args, Move kind);

  StrategyInstance<frugal_router_vtable> instance_;  // labelled "router 'deepseek_v3'"
  frugal_route_layout layout_{};
};

}  // namespace frugal::routing

struct frugal_router {
  std::unique_ptr<frugal::routing::RouterCore> core;
};
