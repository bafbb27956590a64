#include "router/router_core.hpp"

#include <fmt/format.h>
#include <algorithm>

#include "error.hpp"
#include "frugal/managed_tensor.h"
#include "router/plan_views.hpp"
#include "sized_structs.hpp"

namespace frugal::routing {
namespace {

bool is_host(const frugal_device& d) { return d.type == FRUGAL_DEVICE_CPU; }

void require_rows(const Matrix2D& m, const char* role, int64_t rows, const char* why) {
  if (m.rows() != rows) fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: {} rows; expected {} ({})", role, m.rows(), rows, why);
}

// The call as the plugin sees it: a local of the entry point, never copied
// or moved, since the views point into it.
struct RouteCall {
  Matrix2D logits;
  PlanViews plan;
  frugal_route_call args{};
};

struct MoveCall {
  Matrix2D input, output;
  PlanViews plan;
  frugal_route_move_call args{};
};

}  // namespace

RouterCore::RouterCore(std::shared_ptr<LoadedPlugin> plugin, const StrategyRecord& record, const std::string& strategy)
    : instance_(std::move(plugin), record, fmt::format("router '{}'", strategy)) {}

void RouterCore::create_instance(const frugal_options* options) {
  instance_.create(options);
  frugal_route_layout layout{};
  layout.struct_size = sizeof(layout);
  instance_.call(&frugal_router_vtable::layout, &layout);
  layout_ = layout;
  check_layout(layout_, instance_.label());
  const frugal_router_vtable& v = instance_.vtable();
  if (layout_.ep_ranks > 0 && (v.ep_dispatch == nullptr || v.ep_combine == nullptr))
    fail(FRUGAL_ERR_INTERNAL, "{}: the plugin reported {} expert-parallel ranks but has no ep_dispatch / ep_combine",
         instance_.label(), layout_.ep_ranks);
}

void RouterCore::route(const frugal_route_args& raw) {
  require_size(&raw, offsetof(frugal_route_args, plan) + sizeof(void*), "args");
  const frugal_route_args a = read_sized(&raw);
  RouteCall c;
  to_matrix(a.logits, "logits", c.logits);
  const int32_t dt = c.logits.view.dtype;
  if (dt != FRUGAL_DTYPE_FLOAT32 && dt != FRUGAL_DTYPE_BFLOAT16 && dt != FRUGAL_DTYPE_FLOAT16)
    fail(FRUGAL_ERR_UNSUPPORTED, "logits: dtype {}; expected float32, bfloat16 or float16", frugal_dtype_name(dt));
  if (c.logits.cols() != layout_.experts)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "logits: {} columns; this router has {} experts", c.logits.cols(),
         layout_.experts);
  to_plan_views(a.plan, layout_, plan_shape(c.logits.rows()), c.logits, c.plan);
  c.args = {sizeof(frugal_route_call), &c.logits.view, &c.plan.plan, a.stream};
  instance_.call(&frugal_router_vtable::route, &c.args);
  if (is_host(c.logits.view.device)) verify_host_plan(c.plan, layout_, instance_.label());
}

void RouterCore::move(const frugal_route_move_args& raw, Move kind) {
  require_size(&raw, offsetof(frugal_route_move_args, output) + sizeof(void*), "args");
  const frugal_route_move_args a = read_sized(&raw);
  MoveCall c;
  to_matrix(a.input, "input", c.input);
  to_matrix(a.output, "output", c.output);
  const int32_t dt = c.input.view.dtype;
  if (dt != FRUGAL_DTYPE_FLOAT32 && dt != FRUGAL_DTYPE_BFLOAT16)
    fail(FRUGAL_ERR_UNSUPPORTED, "input: dtype {}; activations are float32 or bfloat16", frugal_dtype_name(dt));
  if (c.output.view.dtype != dt)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "output: dtype {}; it must be the input's ({})",
         frugal_dtype_name(c.output.view.dtype), frugal_dtype_name(dt));
  if (c.output.cols() != c.input.cols())
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "output: {} columns; the input has {} (the hidden size)", c.output.cols(),
         c.input.cols());
  require_same_device(c.input, "input", c.output, "output");
  require_disjoint(c.input, c.output, dt == FRUGAL_DTYPE_FLOAT32 ? 4 : 2);
  const Matrix2D& tokens_side = kind == Move::permute ? c.input : c.output;
  const Matrix2D& rows_side = kind == Move::permute ? c.output : c.input;
  const PlanShape shape = plan_shape(tokens_side.rows());
  require_rows(rows_side, kind == Move::permute ? "output" : "input", shape.max_rows,
               "the plan's max_rows for this many tokens");
  to_plan_views(a.plan, layout_, shape, c.input, c.plan);
  c.args = {sizeof(frugal_route_move_call), &c.plan.plan, &c.input.view, &c.output.view, a.stream};
  instance_.call(kind == Move::permute ? &frugal_router_vtable::permute : &frugal_router_vtable::combine, &c.args);
}

void RouterCore::permute(const frugal_route_move_args& args) { move(args, Move::permute); }
void RouterCore::combine(const frugal_route_move_args& args) { move(args, Move::combine); }

void RouterCore::update(const frugal_tensor* expert_load) {
  routing::Vector1D load;
  Matrix2D m;
  to_matrix(expert_load, "expert_load", m);
  if (m.view.dtype != FRUGAL_DTYPE_INT64)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "expert_load: dtype {}, expected int64", frugal_dtype_name(m.view.dtype));
  if (!is_host(m.view.device))
    fail(FRUGAL_ERR_UNSUPPORTED, "expert_load: on {}; the bias update reads host memory (copy the {} loads first)",
         device_name(m.view.device), layout_.experts);
  if (m.rows() * m.cols() != layout_.experts || (m.rows() > 1 && m.strides[0] != m.cols()))
    fail(FRUGAL_ERR_INVALID_ARGUMENT,
         "expert_load: {} x {} (row stride {}); expected {} compact values, one per expert", m.rows(), m.cols(),
         m.strides[0], layout_.experts);
  const auto* values = static_cast<const int64_t*>(m.view.data);
  for (int64_t e = 0; e < layout_.experts; ++e)
    if (values[e] < 0) fail(FRUGAL_ERR_INVALID_ARGUMENT, "expert_load[{}] is {}; loads are >= 0", e, values[e]);
  load.view = m.view;
  load.view.ndim = 1;
  load.shape[0] = layout_.experts;
  load.view.shape = load.shape;
  load.view.strides = load.strides;
  const frugal_router_update_call args{sizeof(frugal_router_update_call), &load.view};
  instance_.call(&frugal_router_vtable::update, &args);
}

frugal_route_stats RouterCore::stats(const frugal_route_plan* raw) const {
  if (raw == nullptr) fail(FRUGAL_ERR_INVALID_ARGUMENT, "plan is NULL");
  require_size(raw, FRUGAL_ROUTE_PLAN_V2_3_SIZE, "plan");
  const frugal_route_plan p = read_sized(raw);
  // T comes from token_offsets' length; every tensor read must be host memory.
  Matrix2D host;
  host.view.device = frugal_device{FRUGAL_DEVICE_CPU, 0};
  Matrix2D probe;
  to_matrix(p.token_offsets, "plan.token_offsets", probe);
  if (!is_host(probe.view.device))
    fail(FRUGAL_ERR_UNSUPPORTED,
         "plan.token_offsets: on {}; statistics read host memory (copy token_offsets, expert_offsets, "
         "expert_demand and losses from the device first)",
         device_name(probe.view.device));
  const int64_t T = probe.rows() * probe.cols() - 1;
  if (T < 1) fail(FRUGAL_ERR_INVALID_ARGUMENT, "plan.token_offsets: holds {} elements; a plan has T + 1 >= 2", T + 1);
  const PlanShape shape = plan_shape(T);
  const int64_t E = layout_.experts;
  Vector1D offsets, demand, token_offsets, losses;
  to_plan_vector(p.token_offsets, "token_offsets", FRUGAL_DTYPE_INT64, T + 1, host, token_offsets);
  to_plan_vector(p.expert_offsets, "expert_offsets", FRUGAL_DTYPE_INT64, E + 1, host, offsets);
  to_plan_vector(p.expert_demand, "expert_demand", FRUGAL_DTYPE_INT64, E, host, demand);
  to_plan_vector(p.losses, "losses", FRUGAL_DTYPE_FLOAT32, 2, host, losses);

  frugal_route_stats s{};
  s.struct_size = sizeof(s);
  s.tokens = T;
  s.assignments = layout_.choice == FRUGAL_ROUTER_TOKEN_CHOICE ? shape.slots : shape.max_rows;
  s.kept = offsets.data<const int64_t>()[E];
  if (s.kept < 0 || s.kept > s.assignments)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "plan.expert_offsets[E] is {}; a plan of {} tokens keeps 0 to {} rows", s.kept, T,
         s.assignments);
  // Expert choice across ranks: this rank's picks are its assignments.
  if (layout_.ep_ranks > 0 && layout_.choice == FRUGAL_ROUTER_EXPERT_CHOICE) s.assignments = s.kept;
  s.dropped = s.assignments - s.kept;
  int64_t total = 0;
  for (int64_t e = 0; e < E; ++e) {
    const int64_t d = demand.data<const int64_t>()[e];
    if (d < 0) fail(FRUGAL_ERR_INVALID_ARGUMENT, "plan.expert_demand[{}] is {}", e, d);
    s.max_load = std::max(s.max_load, d);
    total += d;
  }
  if (total > 0)
    s.max_over_mean = static_cast<double>(s.max_load) * static_cast<double>(E) / static_cast<double>(total);
  if (s.assignments > 0) s.dropped_fraction = static_cast<double>(s.dropped) / static_cast<double>(s.assignments);
  s.aux_loss = losses.data<const float>()[0];
  s.z_loss = losses.data<const float>()[1];
  return s;
}

}  // namespace frugal::routing
