#include "plugin/plan_views.hpp"

#include <algorithm>

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
  PlanSpans s{span_of<int32_t>(p.expert_ids),
              span_of<float>(p.weights),
              span_of<uint8_t>(p.dropped),
              span_of<int64_t>(p.slot_row),
              span_of<int64_t>(p.expert_offsets),
              span_of<int64_t>(p.expert_demand),
              span_of<int64_t>(p.row_token),
              span_of<float>(p.row_weight),
              span_of<int64_t>(p.token_offsets),
              span_of<int64_t>(p.token_rows),
              span_of<float>(p.mean_prob),
              span_of<float>(p.losses),
              {},
              {}};
  if (p.struct_size >= sizeof(frugal_route_plan)) {
    s.ep_tokens = span_of<int64_t>(p.ep_tokens);
    s.ep_rows = span_of<int64_t>(p.ep_rows);
  }
  return s;
}

namespace {

template <class T>
void copy_into(std::span<const T> from, std::span<T> to) {
  std::copy(from.begin(), from.end(), to.begin());
}

}  // namespace

void write_plan(const DispatchPlan& plan, std::span<const float> mean_prob, float aux_loss, float z_loss,
                const PlanSpans& out) {
  const auto n = static_cast<std::size_t>(plan.rows());
  if (!out.dropped.empty()) {
    copy_into<uint8_t>(plan.dropped, out.dropped);
    copy_into<int64_t>(plan.slot_row, out.slot_row);
  }
  copy_into<int64_t>(plan.expert_offsets, out.expert_offsets);
  copy_into<int64_t>(plan.expert_demand, out.expert_demand);
  copy_into<int64_t>(plan.row_token, out.row_token);
  copy_into<float>(plan.row_weight, out.row_weight);
  copy_into<int64_t>(plan.token_offsets, out.token_offsets);
  copy_into<int64_t>(plan.token_rows, out.token_rows);
  std::fill(out.row_token.begin() + static_cast<std::ptrdiff_t>(n), out.row_token.end(), -1);
  std::fill(out.token_rows.begin() + static_cast<std::ptrdiff_t>(n), out.token_rows.end(), -1);
  std::fill(out.row_weight.begin() + static_cast<std::ptrdiff_t>(n), out.row_weight.end(), 0.0f);
  copy_into<float>(mean_prob, out.mean_prob);
  out.losses[0] = aux_loss;
  out.losses[1] = z_loss;
}

void write_routing(const Routing& r, const PlanSpans& out) {
  copy_into<int32_t>(r.expert, out.expert_ids);
  copy_into<float>(r.weight, out.weights);
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
