#include "router_selector.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "host_tensor.hpp"

namespace frugal_demo {
namespace {

namespace host = frugal::host;

}  // namespace

PluginRouter::PluginRouter(frugal_context* context, const MoeOptions& options, std::size_t layers, DropPolicy drop)
    : experts_(options.experts), k_(options.top_k) {
  if (context == nullptr) throw std::invalid_argument("PluginRouter: context is null");
  host::Options o;
  o.set("experts", options.experts).set("k", options.top_k).set("renormalize", options.renormalize);
  o.set("aux_coef", options.aux_coef);
  // The model's capacity_factor <= 0 means no limit: the plugin's dropless.
  o.set("capacity_factor", options.capacity_factor > 0 ? options.capacity_factor : 0.0);
  if (options.capacity_factor > 0) o.set("drop_policy", drop == DropPolicy::position ? "position" : "probability");
  // The model already runs its kernels on every core; routing a few
  // thousand tokens is cheaper inline than on fresh threads.
  o.set("threads", 1);
  layers_.resize(layers);
  for (Layer& layer : layers_) layer.router = host::make_router(context, "topk_softmax", o.get());
}

ExpertSelector<float> PluginRouter::selector() {
  return [this](const RouteRequest<float>& request, std::span<std::int32_t> choice) { route(request, choice); };
}

void PluginRouter::route(const RouteRequest<float>& request, std::span<std::int32_t> choice) {
  if (request.layer < 0 || static_cast<std::size_t>(request.layer) >= layers_.size())
    throw std::out_of_range("PluginRouter: no router for MoE layer " + std::to_string(request.layer) + " (have " +
                            std::to_string(layers_.size()) + ")");
  if (request.experts != experts_ || request.k != k_)
    throw std::invalid_argument("PluginRouter: the layer asks for " + std::to_string(request.experts) +
                                " experts, top " + std::to_string(request.k) + "; the routers were made for " +
                                std::to_string(experts_) + ", top " + std::to_string(k_));
  Layer& layer = layers_[static_cast<std::size_t>(request.layer)];
  const std::size_t e = experts_, k = k_;
  std::fill(choice.begin(), choice.end(), -1);

  // Padding is never routed, and must not count toward the capacity.
  std::vector<std::size_t>& active_rows = layer.active_rows;
  active_rows.clear();
  for (std::size_t t = 0; t < request.tokens; ++t)
    if (request.active.empty() || request.active[t] != 0) active_rows.push_back(t);
  if (active_rows.empty()) return;
  const std::size_t n = active_rows.size();
  layer.logits.resize(n * e);
  for (std::size_t a = 0; a < n; ++a)
    std::copy_n(request.logits.begin() + static_cast<std::ptrdiff_t>(active_rows[a] * e), e,
                layer.logits.begin() + static_cast<std::ptrdiff_t>(a * e));

  frugal_route_shape shape{};
  shape.struct_size = sizeof(shape);
  host::check(frugal_router_plan_shape(layer.router.get(), static_cast<std::int64_t>(n), &shape));
  const auto rows = static_cast<std::size_t>(shape.max_rows);
  layer.capacity = shape.capacity;
  layer.expert_ids.resize(n * k);
  layer.weights.resize(n * k);
  layer.dropped.resize(n * k);
  layer.slot_row.resize(n * k);
  layer.expert_offsets.resize(e + 1);
  layer.expert_demand.resize(e);
  layer.row_token.resize(rows);
  layer.row_weight.resize(rows);
  layer.token_offsets.resize(n + 1);
  layer.token_rows.resize(rows);
  layer.mean_prob.resize(e);
  layer.losses.resize(2);

  const auto ni = static_cast<std::int64_t>(n), ei = static_cast<std::int64_t>(e), ki = static_cast<std::int64_t>(k);
  const std::array<std::int64_t, 2> logits_shape{ni, ei}, slots_shape{ni, ki};
  const std::array<std::int64_t, 1> offsets_shape{ei + 1}, experts_shape{ei}, rows_shape{shape.max_rows},
      token_offsets_shape{ni + 1}, losses_shape{2};
  const frugal_tensor logits = host_tensor(layer.logits.data(), FRUGAL_DTYPE_FLOAT32, logits_shape);
  const frugal_tensor expert_ids = host_tensor(layer.expert_ids.data(), FRUGAL_DTYPE_INT32, slots_shape);
  const frugal_tensor weights = host_tensor(layer.weights.data(), FRUGAL_DTYPE_FLOAT32, slots_shape);
  const frugal_tensor dropped = host_tensor(layer.dropped.data(), FRUGAL_DTYPE_UINT8, slots_shape);
  const frugal_tensor slot_row = host_tensor(layer.slot_row.data(), FRUGAL_DTYPE_INT64, slots_shape);
  const frugal_tensor expert_offsets = host_tensor(layer.expert_offsets.data(), FRUGAL_DTYPE_INT64, offsets_shape);
  const frugal_tensor expert_demand = host_tensor(layer.expert_demand.data(), FRUGAL_DTYPE_INT64, experts_shape);
  const frugal_tensor row_token = host_tensor(layer.row_token.data(), FRUGAL_DTYPE_INT64, rows_shape);
  const frugal_tensor row_weight = host_tensor(layer.row_weight.data(), FRUGAL_DTYPE_FLOAT32, rows_shape);
  const frugal_tensor token_offsets = host_tensor(layer.token_offsets.data(), FRUGAL_DTYPE_INT64, token_offsets_shape);
  const frugal_tensor token_rows = host_tensor(layer.token_rows.data(), FRUGAL_DTYPE_INT64, rows_shape);
  const frugal_tensor mean_prob = host_tensor(layer.mean_prob.data(), FRUGAL_DTYPE_FLOAT32, experts_shape);
  const frugal_tensor losses = host_tensor(layer.losses.data(), FRUGAL_DTYPE_FLOAT32, losses_shape);

  frugal_route_plan plan{};
  plan.struct_size = sizeof(plan);
  plan.expert_ids = &expert_ids;
  plan.weights = &weights;
  plan.dropped = &dropped;
  plan.slot_row = &slot_row;
  plan.expert_offsets = &expert_offsets;
  plan.expert_demand = &expert_demand;
  plan.row_token = &row_token;
  plan.row_weight = &row_weight;
  plan.token_offsets = &token_offsets;
  plan.token_rows = &token_rows;
  plan.mean_prob = &mean_prob;
  plan.losses = &losses;
  frugal_route_args args{};
  args.struct_size = sizeof(args);
  args.logits = &logits;
  args.plan = &plan;
  host::check(frugal_router_route(layer.router.get(), &args));

  for (std::size_t a = 0; a < n; ++a) {
    const std::size_t t = active_rows[a];
    for (std::size_t s = 0; s < k; ++s)
      choice[t * k + s] = layer.dropped[a * k + s] != 0 ? -1 : layer.expert_ids[a * k + s];
  }
  layer.stats = frugal_route_stats{};
  layer.stats.struct_size = sizeof(layer.stats);
  host::check(frugal_router_stats(layer.router.get(), &plan, &layer.stats));
}

std::string PluginRouter::layer_name(std::size_t layer) { return "moe_router." + std::to_string(layer); }

}  // namespace frugal_demo
