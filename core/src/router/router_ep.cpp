// The expert-parallel calls of RouterCore (frugal_router_ep_shape,
// _ep_dispatch, _ep_combine): the exchange's sizes from a plan's ep members,
// and the checks of every tensor before the plugin's collective runs. A
// rank that fails a check returns before the collective, so its peers see a
// late rank and fail within the comm's timeout rather than hang.
#include <fmt/format.h>

#include "error.hpp"
#include "frugal/managed_tensor.h"
#include "router/plan_views.hpp"
#include "router/router_core.hpp"
#include "sized_structs.hpp"

namespace frugal::routing {
namespace {

// A [0, cols] matrix on `device`: the rows side of a rank that receives
// nothing (a frugal_tensor cannot hold zero elements).
void empty_rows(Matrix2D& m, int32_t dtype, int64_t cols, const frugal_device& device) {
  m.view = frugal_tensor{};
  m.view.struct_size = sizeof(frugal_tensor);
  m.view.dtype = dtype;
  m.view.device = device;
  m.shape[0] = 0;
  m.shape[1] = cols;
  m.strides[0] = cols;
  m.strides[1] = 1;
  m.view.ndim = 2;
  m.view.shape = m.shape;
  m.view.strides = m.strides;
}

void require_activation_dtype(const Matrix2D& m, const char* role) {
  const int32_t dt = m.view.dtype;
  if (dt != FRUGAL_DTYPE_FLOAT32 && dt != FRUGAL_DTYPE_BFLOAT16)
    fail(FRUGAL_ERR_UNSUPPORTED, "{}: dtype {}; activations are float32 or bfloat16", role, frugal_dtype_name(dt));
}

// `tensor` as the rows side of an exchange: `rows` x cols of `like`'s dtype
// and device; NULL or empty allowed when rows is 0.
void to_rows_side(const frugal_tensor* tensor, const char* role, int64_t rows, const Matrix2D& like, Matrix2D& out) {
  if (rows == 0 && tensor == nullptr) return empty_rows(out, like.view.dtype, like.cols(), like.view.device);
  if (rows == 0 && tensor != nullptr) {
    Matrix2D probe;
    try {
      to_matrix(tensor, role, probe);
    } catch (const Error&) {
      return empty_rows(out, like.view.dtype, like.cols(), like.view.device);  // no elements: fine with 0 rows
    }
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: {} rows; this rank receives none (pass NULL)", role, probe.rows());
  }
  to_matrix(tensor, role, out);
  if (out.view.dtype != like.view.dtype)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: dtype {}; it must be the tokens' ({})", role,
         frugal_dtype_name(out.view.dtype), frugal_dtype_name(like.view.dtype));
  if (out.cols() != like.cols())
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: {} columns; the tokens have {} (the hidden size)", role, out.cols(),
         like.cols());
  if (out.rows() != rows)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: {} rows; this rank's experts receive {} (frugal_router_ep_shape)", role,
         out.rows(), rows);
  require_same_device(like, "the tokens", out, role);
}

// NULL, or a compact host INT64 vector of `count` elements.
void to_host_index(const frugal_tensor* tensor, const char* role, int64_t count, Vector1D& out, bool& given) {
  given = tensor != nullptr && count > 0;
  if (tensor == nullptr || count == 0) return;
  Matrix2D host;
  host.view.device = frugal_device{FRUGAL_DEVICE_CPU, 0};
  to_plan_vector(tensor, role, FRUGAL_DTYPE_INT64, count, host, out);
}

}  // namespace

EpShape RouterCore::ep_shape_of(const frugal_route_plan* raw, int64_t tokens) const {
  if (layout_.ep_ranks == 0)
    fail(FRUGAL_ERR_FAILED_PRECONDITION, "{} is not expert-parallel (create it with the ep_comm option)",
         instance_.label());
  if (raw == nullptr) fail(FRUGAL_ERR_INVALID_ARGUMENT, "plan is NULL");
  require_size(raw, sizeof(frugal_route_plan), "plan");
  const frugal_route_plan p = read_sized(raw);
  const int64_t W = layout_.ep_ranks;
  const int64_t E = layout_.experts;
  Matrix2D host;
  host.view.device = frugal_device{FRUGAL_DEVICE_CPU, 0};
  Vector1D ep_tokens, ep_rows;
  to_plan_vector(p.ep_tokens, "ep_tokens", FRUGAL_DTYPE_INT64, W, host, ep_tokens);
  to_plan_vector(p.ep_rows, "ep_rows", FRUGAL_DTYPE_INT64, W * E, host, ep_rows);
  const int64_t* t = ep_tokens.data<const int64_t>();
  const int64_t* rows = ep_rows.data<const int64_t>();
  const auto me = static_cast<int64_t>(layout_.ep_rank);
  EpShape s;
  s.rank = layout_.ep_rank;
  s.ranks = layout_.ep_ranks;
  s.first_expert = FRUGAL_ROUTE_EP_FIRST(layout_.experts, layout_.ep_ranks, layout_.ep_rank);
  s.local_experts = FRUGAL_ROUTE_EP_EXPERTS(layout_.experts, layout_.ep_ranks, layout_.ep_rank);
  constexpr int64_t kMaxTokens = int64_t{1} << 32;
  for (int64_t r = 0; r < W; ++r) {
    if (t[r] < 1 || t[r] > kMaxTokens)
      fail(FRUGAL_ERR_INVALID_ARGUMENT, "plan.ep_tokens[{}] is {}; a rank routes 1 to 2^32 tokens", r, t[r]);
    if (r < me) s.token_offset += t[r];
    s.group_tokens += t[r];
  }
  if (tokens >= 0 && t[me] != tokens)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "plan.ep_tokens[{}] is {}, but this call has {} tokens: a plan of another step?",
         me, t[me], tokens);
  // A rank keeps at most top_k rows per token, or E (expert choice).
  for (int64_t r = 0; r < W; ++r) {
    const int64_t limit = t[r] * (layout_.top_k > 0 ? layout_.top_k : E);
    int64_t sent = 0;
    for (int64_t e = 0; e < E; ++e) {
      const int64_t n = rows[r * E + e];
      if (n < 0 || n > t[r])
        fail(FRUGAL_ERR_INVALID_ARGUMENT, "plan.ep_rows[{}, {}] is {}; rank {} routed {} tokens", r, e, n, r, t[r]);
      sent += n;
      if (e >= s.first_expert && e < s.first_expert + s.local_experts) s.received_rows += n;
    }
    if (sent > limit)
      fail(FRUGAL_ERR_INVALID_ARGUMENT, "plan.ep_rows: rank {} keeps {} rows for {} tokens (at most {})", r, sent, t[r],
           limit);
    if (r == me) s.sent_rows = sent;
  }
  return s;
}

void RouterCore::ep_dispatch(const frugal_route_dispatch_args& raw) {
  require_size(&raw, offsetof(frugal_route_dispatch_args, output) + sizeof(void*), "args");
  const frugal_route_dispatch_args a = read_sized(&raw);
  Matrix2D input, output;
  to_matrix(a.input, "input", input);
  require_activation_dtype(input, "input");
  const EpShape shape = ep_shape_of(a.plan, input.rows());
  to_rows_side(a.output, "output", shape.received_rows, input, output);
  if (shape.received_rows > 0) require_disjoint(input, output, input.view.dtype == FRUGAL_DTYPE_FLOAT32 ? 4 : 2);
  PlanViews plan;
  to_plan_views(a.plan, layout_, plan_shape(input.rows()), input, plan);
  Vector1D offsets, row_token;
  bool has_offsets = false;
  bool has_row_token = false;
  to_host_index(a.expert_offsets, "expert_offsets", shape.local_experts + 1, offsets, has_offsets);
  to_host_index(a.row_token, "row_token", shape.received_rows, row_token, has_row_token);
  const frugal_route_dispatch_call call{sizeof(frugal_route_dispatch_call),
                                        &plan.plan,
                                        &input.view,
                                        &output.view,
                                        has_offsets ? &offsets.view : nullptr,
                                        has_row_token ? &row_token.view : nullptr,
                                        a.stream};
  instance_.call(&frugal_router_vtable::ep_dispatch, &call);
}

void RouterCore::ep_combine(const frugal_route_move_args& raw) {
  require_size(&raw, offsetof(frugal_route_move_args, output) + sizeof(void*), "args");
  const frugal_route_move_args a = read_sized(&raw);
  Matrix2D input, output;
  to_matrix(a.output, "output", output);
  require_activation_dtype(output, "output");
  const EpShape shape = ep_shape_of(a.plan, output.rows());
  to_rows_side(a.input, "input", shape.received_rows, output, input);
  if (shape.received_rows > 0) require_disjoint(input, output, output.view.dtype == FRUGAL_DTYPE_FLOAT32 ? 4 : 2);
  PlanViews plan;
  to_plan_views(a.plan, layout_, plan_shape(output.rows()), output, plan);
  const frugal_route_move_call call{sizeof(frugal_route_move_call), &plan.plan, &input.view, &output.view, a.stream};
  instance_.call(&frugal_router_vtable::ep_combine, &call);
}

}  // namespace frugal::routing
