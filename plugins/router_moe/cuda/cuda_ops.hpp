// The CUDA path of router_moe: routing, permute and combine on device
// memory, byte for byte the CPU path's results (algorithms/). Plain C++
// header (no CUDA types), so the plugin glue compiles without nvcc. In a
// build without CUDA every function throws UnsupportedDevice.
#pragma once

#include <cstdint>
#include <string>

#include "algorithms/capacity.hpp"
#include "algorithms/deepseek_gate.hpp"
#include "algorithms/logits.hpp"
#include "cuda_support/device_errors.hpp"

namespace frugal::router::cuda {

// The device path's two failures, shared by the plugins with kernels
// (plugins/cuda_support/device_errors.hpp).
using plugin_cuda::CudaFailure;
using plugin_cuda::UnsupportedDevice;

// True when this build has the CUDA kernels.
bool built_with_cuda() noexcept;

// The plan's tensors (frugal_route_plan), compact, in device memory of one
// device. The token-choice fields are null for expert choice.
struct DevicePlan {
  int32_t* expert_ids = nullptr;      // [tokens * k]
  float* weights = nullptr;           // [tokens * k]
  uint8_t* dropped = nullptr;         // [tokens * k]
  int64_t* slot_row = nullptr;        // [tokens * k]
  int64_t* expert_offsets = nullptr;  // [experts + 1]
  int64_t* expert_demand = nullptr;   // [experts]
  int64_t* row_token = nullptr;       // [max_rows]
  float* row_weight = nullptr;        // [max_rows]
  int64_t* token_offsets = nullptr;   // [tokens + 1]
  int64_t* token_rows = nullptr;      // [max_rows]
  float* mean_prob = nullptr;         // [experts]
  float* losses = nullptr;            // [2]: aux loss, z-loss
  int64_t max_rows = 0;               // R (frugal_router_plan_shape)
};

enum class RouterKind { topk_softmax, deepseek_v3, expert_choice };

// One route: the routers' options as the CPU path takes them.
struct RouteRequest {
  RouterKind kind = RouterKind::topk_softmax;
  Logits logits;  // [tokens, experts] in device memory
  int64_t k = 0;  // token choice: experts per token; 0 for expert choice

  // topk_softmax (TopkSoftmaxOptions)
  bool renormalize = false;
  float aux_coef = 0.0f;  // also deepseek_v3's
  float z_coef = 0.0f;    // also deepseek_v3's

  // deepseek_v3 (DeepSeekGateOptions)
  ScoreFunction score = ScoreFunction::sigmoid;
  int64_t groups = 1;
  int64_t topk_groups = 1;
  float route_scale = 1.0f;
  const float* bias = nullptr;  // HOST memory, [experts], or null: no bias

  // Capacity: token choice uses policy and capacity (expert_capacity(); 0
  // when dropless); expert choice uses capacity as C (expert_choice_capacity()).
  DropPolicy policy = DropPolicy::dropless;
  int64_t capacity = 0;

  void* stream = nullptr;  // cudaStream_t; null: the default stream
};

// Queues the whole route on request.stream and writes every plan tensor
// exactly as the CPU path would: routing (topk_softmax /
// deepseek_v3_route / expert_choice), build_dispatch_plan for token
// choice, mean_prob and losses; rows [N, max_rows) get row_token =
// token_rows = -1 and row_weight = 0. Never synchronises the stream.
// Logits are not checked for NaN / Inf on the device (the CPU path rejects
// them); any input keeps every index written in range.
void route(const RouteRequest& request, const DevicePlan& plan);

enum class Element { f32, bf16 };

// out[r] = x[row_token[r]] for r in [0, max_rows) with row_token[r] >= 0;
// other rows untouched. Strides in elements; hidden elements per row.
void permute(const int64_t* row_token, int64_t max_rows, const void* x, int64_t x_stride, void* out, int64_t out_stride,
             int64_t hidden, Element element, void* stream);

// out[t] = sum over i in [token_offsets[t], token_offsets[t+1]) of
// row_weight[token_rows[i]] * y[token_rows[i]], in that order, fp32
// accumulation from 0 (products rounded, then added: no fused
// multiply-add), bf16 rounded once at the end (nearest even), exactly as
// combine_rows on the CPU.
void combine(const int64_t* token_offsets, const int64_t* token_rows, const float* row_weight, int64_t tokens,
             const void* y, int64_t y_stride, void* out, int64_t out_stride, int64_t hidden, Element element,
             void* stream);

}  // namespace frugal::router::cuda
