// The steps route() queues, one .cu file each, in the order it calls them:
//
//   select.cu         token choice: scores, top-k, weights per token
//                     (topk_softmax, deepseek_v3), one warp per token;
//   expert_choice.cu  expert choice: scores transposed to expert-major,
//                     each expert's C best tokens, the token index;
//   stats.cu          mean_prob (per-block partial sums in double, then the
//                     blocks in order), the aux loss and the z-loss;
//   dispatch.cu       the token-choice dispatch plan: a stable sort of the
//                     slots by expert, capacity, rows, the token index.
//
// Every function queues work on `stream` and returns; pointers are device
// memory of the current device. Internal to cuda/.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "algorithms/capacity.hpp"
#include "algorithms/deepseek_gate.hpp"
#include "algorithms/logits.hpp"
#include "cuda/cuda_ops.hpp"

namespace frugal::router::cuda::steps {

// Per-token values the selection leaves for the later passes, which
// recompute a token's scores from its logits with them ([tokens] each; null
// where the router has no use for it).
struct TokenStats {
  float* max = nullptr;  // softmax: the row max
  float* inv = nullptr;  // softmax: 1 / sum of exps
  float* lse = nullptr;  // logsumexp, for the z-loss
  // deepseek_v3: 1 / (double) the fp32 sum of the scores, which normalises
  // P_i's terms; 0 when that sum is not positive (the CPU adds nothing then).
  double* total_inv = nullptr;
};

// --- select.cu --------------------------------------------------------------

void select_topk_softmax(const Logits& logits, std::int64_t k, bool renormalize, std::int32_t* expert_ids,
                         float* weights, const TokenStats& stats, cudaStream_t stream);

struct DeepSeekSelect {
  ScoreFunction score = ScoreFunction::sigmoid;
  std::int64_t k = 1;
  std::int64_t groups = 1;
  std::int64_t topk_groups = 1;
  float route_scale = 1.0f;
  const float* bias = nullptr;  // device, [experts], or null
  bool want_z = false;
};
void select_deepseek(const Logits& logits, const DeepSeekSelect& options, std::int32_t* expert_ids, float* weights,
                     const TokenStats& stats, cudaStream_t stream);

// Copies `count` floats of host memory to `device`, through kernel
// parameters: the host buffer may go away when this returns, and nothing
// waits for the stream.
void upload_floats(const float* host, std::int64_t count, float* device, cudaStream_t stream);

// --- expert_choice.cu ---------------------------------------------------------

// S = softmax of every row, stored expert-major: scores_t[e * tokens + t].
void expert_choice_scores(const Logits& logits, float* scores_t, const TokenStats& stats, cudaStream_t stream);

// Expert e's rows [e C, (e + 1) C) are its C best tokens (ties to the lower
// token) in increasing token order; expert_offsets, expert_demand,
// token_offsets and token_rows as index_rows_by_token leaves them.
void expert_choice_plan(const float* scores_t, std::int64_t tokens, std::int64_t experts, std::int64_t capacity,
                        const DevicePlan& plan, cudaStream_t stream);

// --- stats.cu -----------------------------------------------------------------

// How P_i's per-token terms are recomputed from the logits.
enum class ProbTerm {
  softmax,             // p_i = softmax_i (topk_softmax, expert_choice)
  sigmoid_normalised,  // s_i / sum_j s_j, s = sigmoid (deepseek_v3)
  softmax_normalised,  // s_i / sum_j s_j, s = softmax (deepseek_v3)
};

// partial[b * experts + e] = sum over the tokens of block b (`block`
// tokens each), in token order, of P_e's term, in double.
void mean_prob_partials(const Logits& logits, ProbTerm term, std::int64_t block, const TokenStats& stats,
                        double* partial, cudaStream_t stream);

struct LossInputs {
  const double* partial = nullptr;
  std::int64_t blocks = 0;
  std::int64_t tokens = 0;
  std::int64_t experts = 0;
  const std::int64_t* demand = nullptr;  // [experts], before drops
  float aux_coef = 0.0f;
  bool aux = true;             // false: losses[0] = 0 (expert choice)
  const float* lse = nullptr;  // [tokens], or null: losses[1] = 0
  float z_coef = 0.0f;
};
// mean_prob[e] = sum of the partials in block order / tokens; losses[0] =
// load_balancing_loss(demand, mean_prob, aux_coef), losses[1] =
// z_loss(lse, z_coef), each as losses.cpp computes it.
void finish_stats(const LossInputs& in, float* mean_prob, float* losses, cudaStream_t stream);

// --- dispatch.cu --------------------------------------------------------------

struct Routed {
  const std::int32_t* expert_ids = nullptr;  // [tokens * k]
  const float* weights = nullptr;            // [tokens * k]
  std::int64_t tokens = 0;
  std::int64_t experts = 0;
  std::int64_t k = 0;
};
// build_dispatch_plan: expert_demand, expert_offsets, slot_row, dropped,
// row_token, row_weight, token_offsets, token_rows, and rows [N, max_rows)
// as unused rows.
void token_choice_plan(const Routed& routed, DropPolicy policy, std::int64_t capacity, const DevicePlan& plan,
                       cudaStream_t stream);

}  // namespace frugal::router::cuda::steps
