#include "plugin/plan_views.hpp"

namespace frugal::router::plugin {
namespace {

// A 1-D compact view as a span; an absent (NULL) tensor is an empty span.
template <class T>
std::span<T> span_of(const frugal_tensor* t) {
  if (t == nullptr) return {};
  return std::span<T>(static_cast<T*>(t->data), static_cast<std::size_t>(t->shape[0]));
}

}  // namespace

Logits logits_of(const frugal_tensor& logits) {
  const LogitType type = logits.dtype == FRUGAL_DTYPE_FLOAT32    ? LogitType::f32
                         : logits.dtype == FRUGAL_DTYPE_BFLOAT16 ? LogitType::bf16
                                                                 : LogitType::f16;
  return Logits{{logits.data, logits.shape[0], logits.shape[1], logits.strides[0]}, type};
}

PlanSpans plan_spans(const frugal_route_plan& p) {
  return PlanSpans{
      span_of<int32_t>(p.expert_ids), span_of<float>(p.weights),          span_of<uint8_t>(p.dropped),
      span_of<int64_t>(p.slot_row),   span_of<int64_t>(p.expert_offsets), span_of<int64_t>(p.expert_demand),
      span_of<int64_t>(p.row_token),  span_of<float>(p.row_weight),       span_of<int64_t>(p.token_offsets),
      span_of<int64_t>(p.token_rows), span_of<float>(p.mean_prob),        span_of<float>(p.losses)};
}

cuda::DevicePlan device_plan(const PlanSpans& p) {
  cuda::DevicePlan d;
  d.expert_ids = p.expert_ids.data();
  d.weights = p.weights.data();
  d.dropped = p.dropped.data();
  d.slot_row = p.slot_row.data();
  d.expert_offsets = p.expert_offsets.data();
  d.expert_demand = p.expert_demand.data();
  d.row_token = p.row_token.data();
  d.row_weight = p.row_weight.data();
  d.token_offsets = p.token_offsets.data();
  d.token_rows = p.token_rows.data();
  d.mean_prob = p.mean_prob.data();
  d.losses = p.losses.data();
  d.max_rows = static_cast<int64_t>(p.row_token.size());
  return d;
}

}  // namespace frugal::router::plugin
