// The router_moe instance behind all three strategies: its options, the
// DeepSeek-V3 selection bias when it has one, and the vtable's operations
// (through sdk/router_adapter.hpp), on the CPU algorithms or the CUDA path
// by the tensors' device.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "algorithms/bias_balancer.hpp"
#include "algorithms/group_moves.hpp"
#include "frugal/router_vtable.h"
#include "frugal/sdk/plugin_support.hpp"
#include "plugin/config.hpp"
#include "plugin/group_comm.hpp"

namespace frugal::router::plugin {

class MoeRouter {
 public:
  MoeRouter(RouterKind kind, const sdk::Options& options);

  [[nodiscard]] frugal_route_layout layout() const;
  // Reads a snapshot of the bias under the lock, then routes without it, so
  // routes run concurrently with each other and with update.
  void route(const frugal_route_call& args) const;
  void permute(const frugal_route_move_call& args) const;
  void combine(const frugal_route_move_call& args) const;
  // deepseek_v3: one bias step from the loads; the others: nothing.
  void update(const frugal_router_update_call& args);
  // The BiasBalancer blob (algorithms/bias_state.cpp); empty when stateless.
  [[nodiscard]] std::vector<std::byte> export_state() const;
  // Accepts only a blob for the same experts and gamma; on any error the
  // bias is left as it was.
  void import_state(std::span<const std::byte> blob);

  // Expert parallelism over the ep_comm option (plugin/expert_parallel.cpp):
  // route_group is route's collective form; the moves send rows to their
  // experts' owners and back. Each runs under group_mutex_.
  void ep_dispatch(const frugal_route_dispatch_call& args) const;
  void ep_combine(const frugal_route_move_call& args) const;

 private:
  [[nodiscard]] std::vector<float> bias_snapshot() const;
  void route_cpu(const frugal_route_call& args) const;
  void route_cuda(const frugal_route_call& args) const;
  void route_group(const frugal_route_call& args) const;

  RouterConfig config_;
  mutable std::mutex mutex_;                    // guards balancer_
  std::optional<BiasBalancer> balancer_;        // deepseek_v3 only
  mutable std::optional<HostGroupComm> group_;  // with ep_comm
  mutable std::mutex group_mutex_;              // one collective sequence at a time
  mutable GroupScratch scratch_;                // the moves' buffers, under group_mutex_
};

// One C++ type per strategy, for the SDK's adapter.
template <RouterKind Kind>
class Strategy : public MoeRouter {
 public:
  explicit Strategy(const sdk::Options& options) : MoeRouter(Kind, options) {}
};

}  // namespace frugal::router::plugin
