#include "router/plan_views.hpp"

#include <fmt/format.h>

#include <utility>

#include "error.hpp"
#include "frugal/managed_tensor.h"
#include "sized_structs.hpp"

namespace frugal::routing {
namespace {

// The device the ep members must be on, whatever the plan's other tensors use.
struct HostDevice {
  Matrix2D m;
  HostDevice() { m.view.device = frugal_device{FRUGAL_DEVICE_CPU, 0}; }
};
const Matrix2D& host_device() {
  static const HostDevice host;
  return host.m;
}

}  // namespace

void require_disjoint(const Matrix2D& a, const Matrix2D& b, std::size_t element) {
  const auto span = [&](const Matrix2D& m) {
    const auto* begin = static_cast<const char*>(m.view.data);
    return std::pair{begin, begin + ((m.rows() - 1) * m.strides[0] + m.cols()) * static_cast<int64_t>(element)};
  };
  const auto [a0, a1] = span(a);
  const auto [b0, b1] = span(b);
  if (a0 < b1 && b0 < a1)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "output overlaps input; permute and combine are not in place");
}

void to_plan_vector(const frugal_tensor* tensor, const char* role, int32_t dtype, int64_t count,
                    const Matrix2D& device_of, Vector1D& out) {
  const std::string name = fmt::format("plan.{}", role);
  if (tensor == nullptr) fail(FRUGAL_ERR_INVALID_ARGUMENT, "{} is NULL", name);
  Matrix2D m;
  to_matrix(tensor, name.c_str(), m);
  if (m.view.dtype != dtype)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: dtype {}, expected {}", name, frugal_dtype_name(m.view.dtype),
         frugal_dtype_name(dtype));
  if (m.rows() > 1 && m.strides[0] != m.cols())
    fail(FRUGAL_ERR_UNSUPPORTED, "{}: plan tensors must be compact (row stride {} for {} columns)", name, m.strides[0],
         m.cols());
  if (m.rows() * m.cols() != count)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: holds {} elements; this plan needs {}", name, m.rows() * m.cols(), count);
  require_same_device(device_of, "the call's first tensor", m, name.c_str());
  out.view = m.view;
  out.view.ndim = 1;
  out.shape[0] = count;
  out.strides[0] = 1;
  out.view.shape = out.shape;
  out.view.strides = out.strides;
}

void to_plan_views(const frugal_route_plan* raw, const frugal_route_layout& layout, const PlanShape& shape,
                   const Matrix2D& device_of, PlanViews& out) {
  if (raw == nullptr) fail(FRUGAL_ERR_INVALID_ARGUMENT, "plan is NULL");
  require_size(raw, FRUGAL_ROUTE_PLAN_V2_3_SIZE, "plan");
  if (layout.ep_ranks > 0 && raw->struct_size < sizeof(frugal_route_plan))
    fail(FRUGAL_ERR_ABI_MISMATCH,
         "plan->struct_size is {}; an expert-parallel router's plan needs ep_tokens and ep_rows ({} bytes, ABI 2.4)",
         raw->struct_size, sizeof(frugal_route_plan));
  const frugal_route_plan p = read_sized(raw);
  const int64_t T = shape.tokens;
  const int64_t E = layout.experts;
  const int64_t R = shape.max_rows;
  out.shape = shape;
  out.token_choice = layout.choice == FRUGAL_ROUTER_TOKEN_CHOICE;
  out.plan = frugal_route_plan{};
  out.plan.struct_size = sizeof(frugal_route_plan);
  if (out.token_choice) {
    const int64_t S = shape.slots;
    to_plan_vector(p.expert_ids, "expert_ids", FRUGAL_DTYPE_INT32, S, device_of, out.expert_ids);
    to_plan_vector(p.weights, "weights", FRUGAL_DTYPE_FLOAT32, S, device_of, out.weights);
    to_plan_vector(p.dropped, "dropped", FRUGAL_DTYPE_UINT8, S, device_of, out.dropped);
    to_plan_vector(p.slot_row, "slot_row", FRUGAL_DTYPE_INT64, S, device_of, out.slot_row);
    out.plan.expert_ids = &out.expert_ids.view;
    out.plan.weights = &out.weights.view;
    out.plan.dropped = &out.dropped.view;
    out.plan.slot_row = &out.slot_row.view;
  }
  to_plan_vector(p.expert_offsets, "expert_offsets", FRUGAL_DTYPE_INT64, E + 1, device_of, out.expert_offsets);
  to_plan_vector(p.expert_demand, "expert_demand", FRUGAL_DTYPE_INT64, E, device_of, out.expert_demand);
  to_plan_vector(p.row_token, "row_token", FRUGAL_DTYPE_INT64, R, device_of, out.row_token);
  to_plan_vector(p.row_weight, "row_weight", FRUGAL_DTYPE_FLOAT32, R, device_of, out.row_weight);
  to_plan_vector(p.token_offsets, "token_offsets", FRUGAL_DTYPE_INT64, T + 1, device_of, out.token_offsets);
  to_plan_vector(p.token_rows, "token_rows", FRUGAL_DTYPE_INT64, R, device_of, out.token_rows);
  to_plan_vector(p.mean_prob, "mean_prob", FRUGAL_DTYPE_FLOAT32, E, device_of, out.mean_prob);
  to_plan_vector(p.losses, "losses", FRUGAL_DTYPE_FLOAT32, 2, device_of, out.losses);
  out.plan.expert_offsets = &out.expert_offsets.view;
  out.plan.expert_demand = &out.expert_demand.view;
  out.plan.row_token = &out.row_token.view;
  out.plan.row_weight = &out.row_weight.view;
  out.plan.token_offsets = &out.token_offsets.view;
  out.plan.token_rows = &out.token_rows.view;
  out.plan.mean_prob = &out.mean_prob.view;
  out.plan.losses = &out.losses.view;
  if (layout.ep_ranks > 0) {
    const int64_t W = layout.ep_ranks;
    to_plan_vector(p.ep_tokens, "ep_tokens", FRUGAL_DTYPE_INT64, W, host_device(), out.ep_tokens);
    to_plan_vector(p.ep_rows, "ep_rows", FRUGAL_DTYPE_INT64, W * E, host_device(), out.ep_rows);
    out.plan.ep_tokens = &out.ep_tokens.view;
    out.plan.ep_rows = &out.ep_rows.view;
  }
}

}  // namespace frugal::routing
