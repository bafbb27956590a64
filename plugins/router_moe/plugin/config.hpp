// The router_moe strategies' options, checked once at creation, and the
// layout they imply.
#pragma once

#include <cstdint>

#include "algorithms/capacity.hpp"
#include "algorithms/deepseek_gate.hpp"
#include "algorithms/topk_softmax.hpp"
#include "cuda/cuda_ops.hpp"
#include "frugal/router_vtable.h"
#include "frugal/sdk/plugin_support.hpp"

namespace frugal::router::plugin {

using cuda::RouterKind;

struct RouterConfig {
  RouterKind kind = RouterKind::topk_softmax;
  int64_t experts = 0;
  int64_t k = 0;  // 0 for expert choice
  // Token choice: dropless, or a policy with capacity_factor > 0. Expert
  // choice: capacity_factor is the paper's c.
  CapacityOptions capacity;
  TopkSoftmaxOptions topk;       // topk_softmax: renormalize, aux_coef, z_coef
  DeepSeekGateOptions deepseek;  // deepseek_v3: score, groups, topk_groups, route_scale, aux/z coefs
  float gamma = 0.0f;            // deepseek_v3: bias update speed
  unsigned threads = 0;
};

// Ranges that config.cpp enforces and option_decls.cpp declares.
inline constexpr int64_t kMaxThreads = 65536;
inline constexpr double kMaxFactor = 1e6;      // capacity_factor, route_scale
inline constexpr double kMinPositive = 1e-6;   // expert-choice capacity_factor, route_scale
inline constexpr double kMaxLossWeight = 1e6;  // aux_coef, z_coef
inline constexpr double kMaxGamma = 1e3;

// Reads and checks the options of strategy `kind` (names in
// router_moe_plugin.cpp, declarations in option_decls.cpp): OUT_OF_RANGE
// naming the option for a value outside its range, INVALID_ARGUMENT for
// anything else.
[[nodiscard]] RouterConfig read_config(RouterKind kind, const sdk::Options& options);

[[nodiscard]] frugal_route_layout layout_of(const RouterConfig& config);

}  // namespace frugal::router::plugin
