// The core's normalised views (frugal/router_vtable.h) as the algorithms'
// and the CUDA path's types: logits rows, activation rows, plan pointers.
// The core has checked every dtype, shape and device; these only reinterpret.
#pragma once

#include <cstdint>
#include <span>

#include "algorithms/logits.hpp"
#include "algorithms/permute.hpp"
#include "cuda/cuda_ops.hpp"
#include "frugal/router_vtable.h"
#include "frugal/sdk/tensor_view.hpp"

namespace frugal::router::plugin {

// The logits as the SDK's view and their type (the core left float32,
// bfloat16 or float16, and a row stride of at least the experts).
[[nodiscard]] Logits logits_of(const frugal_tensor& logits);

// The plan's tensors as spans over their (host or device) memory.
struct PlanSpans {
  std::span<int32_t> expert_ids;
  std::span<float> weights;
  std::span<uint8_t> dropped;
  std::span<int64_t> slot_row;
  std::span<int64_t> expert_offsets;
  std::span<int64_t> expert_demand;
  std::span<int64_t> row_token;
  std::span<float> row_weight;
  std::span<int64_t> token_offsets;
  std::span<int64_t> token_rows;
  std::span<float> mean_prob;
  std::span<float> losses;
  // Expert-parallel plans only (ABI 2.4; empty from an older core's struct).
  std::span<int64_t> ep_tokens;
  std::span<int64_t> ep_rows;
};
[[nodiscard]] PlanSpans plan_spans(const frugal_route_plan& plan);

// The algorithms' results into the host's plan tensors: the routing's ids
// and weights, and the plan with P_i and the losses (rows past N blank).
void write_routing(const Routing& routing, const PlanSpans& out);
void write_plan(const DispatchPlan& plan, std::span<const float> mean_prob, float aux_loss, float z_loss,
                const PlanSpans& out);
[[nodiscard]] cuda::DevicePlan device_plan(const PlanSpans& plan);

// A [rows, cols] tensor as the SDK's view, T = float or uint16_t (bf16
// bits); the core folded byte_offset into data and filled strides.
template <class T>
[[nodiscard]] sdk::MatrixView<T> rows_of(const frugal_tensor& t) {
  return sdk::MatrixView<T>(static_cast<T*>(t.data), t.shape[0], t.shape[1], t.strides[0]);
}

}  // namespace frugal::router::plugin
