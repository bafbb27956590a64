// mean_prob and the losses, in the CPU path's exact arithmetic:
//
//   P_i   the routers sum each block of tokens (256 or 128) in token order,
//         in double, then the blocks in order, and divide by T. Here one
//         thread per (block, expert) recomputes its tokens' scores from the
//         logits with the per-token values the selection kept (the same
//         functions give the same bits) and sums them in the same order; a
//         second pass adds the blocks in order;
//   aux   load_balancing_loss (losses.cpp): a sum over the experts in
//         order, one thread;
//   z     z_loss: a sum of squares over the tokens in order, one thread.
//         A serial chain of T double additions (its rounding depends on
//         the order), skipped when the coefficient is 0.
#include <cstdint>

#include "cuda/cuda_support.hpp"
#include "cuda/steps.hpp"
#include "cuda/warp_ops.cuh"

namespace frugal::router::cuda::steps {
namespace {

constexpr int kThreads = 256;

struct PartialArgs {
  k::LogitArgs logits;
  std::int64_t block = 0;  // tokens per partial sum
  TokenStats stats;
  double* partial = nullptr;
};

// Token t's term of P_e (the accumulation lines of topk_softmax,
// expert_choice_route and deepseek_v3_route).
template <ProbTerm Term>
__device__ __forceinline__ double prob_term(float x, const TokenStats& s, std::int64_t t) {
  if constexpr (Term == ProbTerm::softmax) {
    return static_cast<double>(math::exp_f32(x - s.max[t]) * s.inv[t]);
  } else {
    const double inv = s.total_inv[t];
    if (inv == 0.0) return 0.0;  // an all-underflow sigmoid row adds nothing
    const float score =
        Term == ProbTerm::sigmoid_normalised ? math::sigmoid_f32(x) : math::exp_f32(x - s.max[t]) * s.inv[t];
    return static_cast<double>(score) * inv;
  }
}

// Block b of tokens (blockIdx.x), experts along threads.
template <class In, ProbTerm Term>
__global__ void __launch_bounds__(kThreads) partial_kernel(PartialArgs a) {
  const k::LogitArgs& l = a.logits;
  const std::int64_t e = static_cast<std::int64_t>(blockIdx.y) * blockDim.x + threadIdx.x;
  if (e >= l.experts) return;
  const std::int64_t b = blockIdx.x;
  const std::int64_t first = b * a.block;
  const std::int64_t last = first + a.block < l.tokens ? first + a.block : l.tokens;
  const auto* logits = static_cast<const typename In::Storage*>(l.data);
  double acc = 0.0;
  for (std::int64_t t = first; t < last; ++t) {
    const double term = prob_term<Term>(In::widen(logits[t * l.stride + e]), a.stats, t);
    // The CPU skips the addition for an underflowed sigmoid row; adding 0.0
    // to a sum that started at +0 leaves the same bits.
    acc = acc + term;
  }
  a.partial[b * l.experts + e] = acc;
}

template <class In>
void launch_partials(const PartialArgs& a, ProbTerm term, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((a.logits.tokens + a.block - 1) / a.block),
                  static_cast<unsigned>((a.logits.experts + kThreads - 1) / kThreads));
  switch (term) {
    case ProbTerm::softmax: partial_kernel<In, ProbTerm::softmax><<<grid, kThreads, 0, stream>>>(a); break;
    case ProbTerm::sigmoid_normalised:
      partial_kernel<In, ProbTerm::sigmoid_normalised><<<grid, kThreads, 0, stream>>>(a);
      break;
    case ProbTerm::softmax_normalised:
      partial_kernel<In, ProbTerm::softmax_normalised><<<grid, kThreads, 0, stream>>>(a);
      break;
  }
}

// mean_prob[e] = (sum of partial[b][e] over b in order) / T.
__global__ void __launch_bounds__(kThreads) mean_prob_kernel(LossInputs in, float* mean_prob) {
  const std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= in.experts) return;
  double sum = 0.0;
  for (std::int64_t b = 0; b < in.blocks; ++b) sum = sum + in.partial[b * in.experts + e];
  mean_prob[e] = static_cast<float>(sum / static_cast<double>(in.tokens));
}

// losses[0] and losses[1], one thread each (warps 0 and 1, so the two
// serial loops run side by side).
__global__ void losses_kernel(LossInputs in, const float* mean_prob, float* losses) {
  if (threadIdx.x == 0) {
    float aux = 0.0f;
    std::int64_t total = 0;
    for (std::int64_t e = 0; e < in.experts && in.aux; ++e) total += in.demand[e];
    if (in.aux && total != 0) {
      double dot = 0.0;
      for (std::int64_t e = 0; e < in.experts; ++e) {
        const double share = static_cast<double>(in.demand[e]) / static_cast<double>(total);
        dot = dot + share * static_cast<double>(mean_prob[e]);
      }
      const double scaled = static_cast<double>(in.aux_coef) * static_cast<double>(in.experts);
      aux = static_cast<float>(scaled * dot);
    }
    losses[0] = aux;
  } else if (threadIdx.x == k::kWarp) {
    float z = 0.0f;
    if (in.lse != nullptr) {
      // With a zero coefficient every finite sum gives coef * sum = +-0;
      // the sum (finite: squares of finite floats) is not needed.
      double sum = 0.0;
      if (in.z_coef != 0.0f) {
#pragma unroll 8
        for (std::int64_t t = 0; t < in.tokens; ++t) {
          const double v = in.lse[t];
          sum = sum + v * v;
        }
      }
      const double scaled = static_cast<double>(in.z_coef) * sum;
      z = static_cast<float>(scaled / static_cast<double>(in.tokens));
    }
    losses[1] = z;
  }
}

}  // namespace

void mean_prob_partials(const Logits& logits, ProbTerm term, std::int64_t block, const TokenStats& stats,
                        double* partial, cudaStream_t stream) {
  const PartialArgs a{.logits = k::logit_args(logits), .block = block, .stats = stats, .partial = partial};
  switch (logits.type) {
    case LogitType::f32: launch_partials<k::F32In>(a, term, stream); break;
    case LogitType::bf16: launch_partials<k::BF16In>(a, term, stream); break;
    case LogitType::f16: launch_partials<k::F16In>(a, term, stream); break;
  }
  detail::check_launch("mean_prob partial sums");
}

void finish_stats(const LossInputs& in, float* mean_prob, float* losses, cudaStream_t stream) {
  const auto blocks = static_cast<unsigned>((in.experts + kThreads - 1) / kThreads);
  mean_prob_kernel<<<blocks, kThreads, 0, stream>>>(in, mean_prob);
  detail::check_launch("mean_prob");
  losses_kernel<<<1, 2 * k::kWarp, 0, stream>>>(in, mean_prob, losses);
  detail::check_launch("router losses");
}

}  // namespace frugal::router::cuda::steps
