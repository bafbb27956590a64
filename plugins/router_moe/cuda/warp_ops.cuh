// Device pieces shared by the routing kernels: logit widening, and the
// per-token work one warp does on a row of scores in shared memory (max,
// softmax, sums in index order, top-k). Each follows the CPU reference's
// operations in the same order (algorithms/softmax.hpp, topk.cpp): where
// the CPU sums a row in index order, one lane does here; the parallelism
// comes from the many tokens in flight, not from reordering a sum.
// Internal to cuda/.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "algorithms/router_math.hpp"
#include "cuda/steps.hpp"
#include "quant_fp8/cuda/device_math.hpp"

namespace frugal::router::cuda::k {

inline constexpr unsigned kFull = 0xFFFF'FFFFu;
inline constexpr int kWarp = 32;

__device__ __forceinline__ float neg_inf() { return math::float_of(0xFF80'0000u); }

// Logit storage types and their exact widening to fp32 (the CPU's
// quant::bf16_to_fp32 / fp16_to_fp32, ported bit for bit in device_math).
struct F32In {
  using Storage = float;
  __device__ __forceinline__ static float widen(float v) { return v; }
};
struct BF16In {
  using Storage = std::uint16_t;
  __device__ __forceinline__ static float widen(std::uint16_t v) { return quant::cuda::dm::bf16_to_fp32(v); }
};
struct F16In {
  using Storage = std::uint16_t;
  __device__ __forceinline__ static float widen(std::uint16_t v) { return quant::cuda::dm::fp16_to_fp32(v); }
};

// The logits as kernel parameters: device code reads these copies of a
// Logits view's fields (MatrixView's accessors are host code). The element
// type picks the kernel instance (F32In, ...) instead.
struct LogitArgs {
  const void* data = nullptr;
  std::int64_t tokens = 0;
  std::int64_t experts = 0;
  std::int64_t stride = 0;  // elements between rows
};
inline LogitArgs logit_args(const Logits& l) { return {l.data(), l.rows(), l.cols(), l.row_stride()}; }

// Row t of the logits, widened into v[0, n).
template <class In>
__device__ __forceinline__ void load_row(const void* logits, std::int64_t stride, std::int64_t t, float* v, int n,
                                         unsigned lane) {
  const auto* row = static_cast<const typename In::Storage*>(logits) + t * stride;
  for (int e = static_cast<int>(lane); e < n; e += kWarp) v[e] = In::widen(row[e]);
  __syncwarp();
}

// The token of the calling warp (a block's warps take consecutive tokens)
// and its row of the block's dynamic shared memory, `row_floats` per warp,
// holding the token's widened logits in [0, experts). -1 (row untouched)
// for the warps past the last token.
template <class In>
__device__ __forceinline__ std::int64_t token_row(const LogitArgs& l, std::int64_t row_floats, float*& row) {
  extern __shared__ float shared[];
  const unsigned warp = threadIdx.x / kWarp;
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * (blockDim.x / kWarp) + warp;
  if (t >= l.tokens) return -1;
  row = shared + warp * row_floats;
  load_row<In>(l.data, l.stride, t, row, static_cast<int>(l.experts), threadIdx.x % kWarp);
  return t;
}

// The largest value of v[0, n) on every lane. Only the value matters to
// the callers (x - max and max + log(sum) give the same bits for -0 and +0).
__device__ __forceinline__ float warp_max(const float* v, int n, unsigned lane) {
  float m = v[0];
  for (int e = static_cast<int>(lane); e < n; e += kWarp) m = v[e] > m ? v[e] : m;
  for (int off = 16; off > 0; off >>= 1) {
    const float o = __shfl_xor_sync(kFull, m, off);
    m = o > m ? o : m;
  }
  return __shfl_sync(kFull, m, 0);  // one value for all lanes, whatever NaNs did
}

// v[0] + v[1] + ... + v[n-1] in that order, in fp32, on every lane.
__device__ __forceinline__ float ordered_sum(const float* v, int n, unsigned lane) {
  float s = 0.0f;
  if (lane == 0) {
    for (int e = 0; e < n; ++e) s += v[e];
  }
  return __shfl_sync(kFull, s, 0);
}

struct Softmax {
  float max = 0.0f;
  float inv = 0.0f;  // 1 / sum
  float lse = 0.0f;  // max + log(sum)
};

// softmax_row in place: v = exp(v - max) / sum as exp, sum in order, then
// times 1 / sum.
__device__ __forceinline__ Softmax warp_softmax(float* v, int n, unsigned lane) {
  Softmax s;
  s.max = warp_max(v, n, lane);
  for (int e = static_cast<int>(lane); e < n; e += kWarp) v[e] = math::exp_f32(v[e] - s.max);
  __syncwarp();
  const float sum = ordered_sum(v, n, lane);
  s.inv = 1.0f / sum;
  for (int e = static_cast<int>(lane); e < n; e += kWarp) v[e] = v[e] * s.inv;
  __syncwarp();
  s.lse = s.max + math::log_f32(sum);
  return s;
}

// logsumexp_row of v, using tmp[0, n) as scratch; v is left as it was.
__device__ __forceinline__ float warp_logsumexp(const float* v, float* tmp, int n, unsigned lane) {
  const float max = warp_max(v, n, lane);
  for (int e = static_cast<int>(lane); e < n; e += kWarp) tmp[e] = math::exp_f32(v[e] - max);
  __syncwarp();
  const float sum = ordered_sum(tmp, n, lane);
  return max + math::log_f32(sum);
}

// A selected score and its index.
struct Pick {
  float value = 0.0f;
  int index = 0;
};

// Top-k as successive picks: the next pick is the best element ranked after
// `last` in the order (value descending, index ascending), the order in
// which top_k (topk.cpp) returns its k best. The whole warp calls it and
// gets the same pick; `first` ignores `last`. Scores must not be NaN for
// the CPU's choice (logits are finite there); with NaNs the pick is still
// an index in [0, n).
__device__ __forceinline__ Pick warp_next_pick(const float* v, int n, unsigned lane, bool first, Pick last) {
  Pick best;
  int have = 0;
  for (int i = static_cast<int>(lane); i < n; i += kWarp) {
    const float x = v[i];
    const bool after = first || x < last.value || (x == last.value && i > last.index);
    if (after && (have == 0 || x > best.value)) {  // indices rise along a lane: ties keep the lower
      best = Pick{x, i};
      have = 1;
    }
  }
  for (int off = 16; off > 0; off >>= 1) {
    const float ov = __shfl_xor_sync(kFull, best.value, off);
    const int oi = __shfl_xor_sync(kFull, best.index, off);
    const int oh = __shfl_xor_sync(kFull, have, off);
    if (oh != 0 && (have == 0 || ov > best.value || (ov == best.value && oi < best.index))) {
      best = Pick{ov, oi};
      have = 1;
    }
  }
  best.value = __shfl_sync(kFull, best.value, 0);
  best.index = __shfl_sync(kFull, best.index, 0);
  if (__shfl_sync(kFull, have, 0) == 0) best = Pick{v[0], 0};  // NaN scores only
  return best;
}

}  // namespace frugal::router::cuda::k
