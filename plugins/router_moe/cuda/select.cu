// Token-choice selection: per token, the scores, the top-k experts and
// their weights, exactly as topk_softmax (topk_softmax.cpp) and
// deepseek_v3_route (deepseek_gate.cpp) compute them. One warp per token,
// its row of scores in shared memory; the statistics the later passes need
// (max, 1 / sum, logsumexp, score total) are left per token.
#include <cstdint>

#include "algorithms/deepseek_gate.hpp"
#include "cuda/cuda_support.hpp"
#include "cuda/steps.hpp"
#include "cuda/warp_ops.cuh"

namespace frugal::router::cuda::steps {
namespace {

constexpr int kMaxThreads = 256;

// What both routers' kernels take: the logits, k, and where to write.
struct TokenRows {
  k::LogitArgs logits;
  int k = 0;
  std::int32_t* expert_ids = nullptr;
  float* weights = nullptr;
  TokenStats stats;
};

// The k best of rank[0, n) in top_k's order: their indices to ids[0, k) and
// value[index] to weights[0, k). Returns the fp32 sum of those weights in
// pick order (on lane 0).
__device__ float write_top_k(const float* rank, const float* value, int n, int k, unsigned lane, std::int32_t* ids,
                             float* weights) {
  k::Pick last;
  float sum = 0.0f;
  for (int j = 0; j < k; ++j) {
    last = k::warp_next_pick(rank, n, lane, j == 0, last);
    if (lane == 0) {
      ids[j] = last.index;
      weights[j] = value[last.index];
      sum += weights[j];
    }
  }
  return sum;
}

struct TopkArgs {
  TokenRows rows;
  int renormalize = 0;
};

// topk_softmax: p = softmax(logits); the k best p (ties to the lower
// expert); weights p[selected], divided by their sum when renormalising.
template <class In>
__global__ void __launch_bounds__(kMaxThreads) topk_softmax_kernel(TopkArgs a) {
  const TokenRows& r = a.rows;
  const unsigned lane = threadIdx.x % k::kWarp;
  const int E = static_cast<int>(r.logits.experts);
  float* p = nullptr;
  const std::int64_t t = k::token_row<In>(r.logits, E, p);
  if (t < 0) return;  // whole warps leave; no block-wide barrier follows
  const k::Softmax sm = k::warp_softmax(p, E, lane);
  if (lane == 0) {
    r.stats.max[t] = sm.max;
    r.stats.inv[t] = sm.inv;
    r.stats.lse[t] = sm.lse;
  }
  float* w = r.weights + t * r.k;
  const float sum = write_top_k(p, p, E, r.k, lane, r.expert_ids + t * r.k, w);
  if (lane == 0 && a.renormalize != 0) {
    for (int j = 0; j < r.k; ++j) w[j] = w[j] / sum;
  }
}

struct DeepSeekArgs {
  TokenRows rows;
  int sigmoid = 1;
  int groups = 1;
  int topk_groups = 1;
  int want_z = 0;
  float route_scale = 1.0f;
  const float* bias = nullptr;
};

// Floats of shared memory per token: scores s, biased scores b, group
// scores and kept-group flags.
__host__ __device__ inline std::int64_t deepseek_row_floats(std::int64_t experts, std::int64_t groups) {
  return 2 * experts + 2 * groups;
}

// Sets b to -inf outside the topk_groups best groups (mask_groups).
__device__ void mask_groups(const float* s, float* b, float* group_score, float* kept, const DeepSeekArgs& a,
                            unsigned lane) {
  const int experts = static_cast<int>(a.rows.logits.experts);
  const int size = experts / a.groups;
  const bool has_bias = a.bias != nullptr;
  for (int g = static_cast<int>(lane); g < a.groups; g += k::kWarp) {
    const float* sg = s + g * size;
    const float* bg = b + g * size;
    float score = 0.0f;
    if (!has_bias) {
      score = sg[0];  // max_element: the first largest
      for (int i = 1; i < size; ++i) score = sg[i] > score ? sg[i] : score;
    } else if (size == 1) {
      score = bg[0];
    } else {
      // The two largest values (top_k of two; their order does not change the sum).
      float first = bg[0];
      float second = bg[1];
      if (second > first) {
        first = bg[1];
        second = bg[0];
      }
      for (int i = 2; i < size; ++i) {
        const float v = bg[i];
        if (v > first) {
          second = first;
          first = v;
        } else if (v > second) {
          second = v;
        }
      }
      score = first + second;
    }
    group_score[g] = score;
    kept[g] = 0.0f;
  }
  __syncwarp();
  k::Pick last;
  for (int j = 0; j < a.topk_groups; ++j) {
    last = k::warp_next_pick(group_score, a.groups, lane, j == 0, last);
    if (lane == 0) kept[last.index] = 1.0f;
  }
  __syncwarp();
  const float masked = k::neg_inf();
  for (int e = static_cast<int>(lane); e < experts; e += k::kWarp) {
    if (kept[e / size] == 0.0f) b[e] = masked;
  }
  __syncwarp();
}

// deepseek_v3_route for one token per warp.
template <class In>
__global__ void __launch_bounds__(kMaxThreads) deepseek_kernel(DeepSeekArgs a) {
  const TokenRows& r = a.rows;
  const unsigned lane = threadIdx.x % k::kWarp;
  const int E = static_cast<int>(r.logits.experts);
  float* s = nullptr;
  const std::int64_t t = k::token_row<In>(r.logits, deepseek_row_floats(E, a.groups), s);
  if (t < 0) return;
  float* b = s + E;
  float* group_score = b + E;
  float* kept = group_score + a.groups;
  if (a.sigmoid == 0) {
    const k::Softmax sm = k::warp_softmax(s, E, lane);
    if (lane == 0) {
      r.stats.max[t] = sm.max;
      r.stats.inv[t] = sm.inv;
      if (a.want_z != 0) r.stats.lse[t] = sm.lse;
    }
  } else {
    if (a.want_z != 0) {
      const float lse = k::warp_logsumexp(s, b, E, lane);
      if (lane == 0) r.stats.lse[t] = lse;
    }
    for (int e = static_cast<int>(lane); e < E; e += k::kWarp) s[e] = math::sigmoid_f32(s[e]);
    __syncwarp();
  }
  const float total = k::ordered_sum(s, E, lane);
  // Computed once here, as deepseek_v3_route does per token.
  if (lane == 0) r.stats.total_inv[t] = total > 0.0f ? 1.0 / static_cast<double>(total) : 0.0;
  for (int e = static_cast<int>(lane); e < E; e += k::kWarp) b[e] = a.bias != nullptr ? s[e] + a.bias[e] : s[e];
  __syncwarp();
  if (a.groups > 1) mask_groups(s, b, group_score, kept, a, lane);

  // Ranked by the biased scores, weighted by the unbiased ones.
  float* w = r.weights + t * r.k;
  const float sum = write_top_k(b, s, E, r.k, lane, r.expert_ids + t * r.k, w);
  if (lane == 0) {
    for (int j = 0; j < r.k; ++j) {
      const float v = a.sigmoid != 0 ? w[j] / (sum + kRenormEpsilon) : w[j];
      w[j] = v * a.route_scale;
    }
  }
}

template <class Args>
using Kernel = void (*)(Args);

template <class Args>
void launch_rows(Kernel<Args> kernel, std::int64_t tokens, std::int64_t floats, const char* router, const Args& args,
                 cudaStream_t stream) {
  const detail::RowLaunch l = detail::row_launch(tokens, floats, router, reinterpret_cast<const void*>(kernel));
  kernel<<<l.blocks, l.threads, l.shared, stream>>>(args);
  detail::check_launch(router);
}

// The kernel instance for a logit type.
template <class Args>
Kernel<Args> for_type(LogitType type, Kernel<Args> f32, Kernel<Args> bf16, Kernel<Args> f16) {
  switch (type) {
    case LogitType::bf16: return bf16;
    case LogitType::f16: return f16;
    case LogitType::f32: break;
  }
  return f32;
}

// Kernel parameters carry the values, so the host buffer may go once the
// launch returns (960 floats keep the parameters under 4 KiB).
struct FloatChunk {
  float values[960];
  float* to = nullptr;
  int count = 0;
};

__global__ void store_chunk(const FloatChunk chunk) {
  for (int i = static_cast<int>(threadIdx.x); i < chunk.count; i += static_cast<int>(blockDim.x)) {
    chunk.to[i] = chunk.values[i];
  }
}

}  // namespace

void select_topk_softmax(const Logits& logits, std::int64_t k, bool renormalize, std::int32_t* expert_ids,
                         float* weights, const TokenStats& stats, cudaStream_t stream) {
  const TopkArgs a{.rows = {k::logit_args(logits), static_cast<int>(k), expert_ids, weights, stats},
                   .renormalize = renormalize ? 1 : 0};
  const Kernel<TopkArgs> kernel = for_type<TopkArgs>(logits.type, topk_softmax_kernel<k::F32In>,
                                                     topk_softmax_kernel<k::BF16In>, topk_softmax_kernel<k::F16In>);
  launch_rows(kernel, logits.rows(), logits.cols(), "topk_softmax", a, stream);
}

void select_deepseek(const Logits& logits, const DeepSeekSelect& o, std::int32_t* expert_ids, float* weights,
                     const TokenStats& stats, cudaStream_t stream) {
  const DeepSeekArgs a{.rows = {k::logit_args(logits), static_cast<int>(o.k), expert_ids, weights, stats},
                       .sigmoid = o.score == ScoreFunction::sigmoid ? 1 : 0,
                       .groups = static_cast<int>(o.groups),
                       .topk_groups = static_cast<int>(o.topk_groups),
                       .want_z = o.want_z ? 1 : 0,
                       .route_scale = o.route_scale,
                       .bias = o.bias};
  const Kernel<DeepSeekArgs> kernel = for_type<DeepSeekArgs>(logits.type, deepseek_kernel<k::F32In>,
                                                             deepseek_kernel<k::BF16In>, deepseek_kernel<k::F16In>);
  launch_rows(kernel, logits.rows(), deepseek_row_floats(logits.cols(), o.groups), "deepseek_v3", a, stream);
}

void upload_floats(const float* host, std::int64_t count, float* device, cudaStream_t stream) {
  FloatChunk chunk;
  constexpr std::int64_t kChunk = sizeof(chunk.values) / sizeof(float);
  for (std::int64_t at = 0; at < count; at += kChunk) {
    chunk.count = static_cast<int>(count - at < kChunk ? count - at : kChunk);
    for (int i = 0; i < chunk.count; ++i) chunk.values[i] = host[at + i];
    chunk.to = device + at;
    store_chunk<<<1, 256, 0, stream>>>(chunk);
    detail::check_launch("bias upload");
  }
}

}  // namespace frugal::router::cuda::steps
