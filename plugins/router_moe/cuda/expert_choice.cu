// Expert-choice routing on the device, equal to expert_choice_route
// (expert_choice.cpp):
//
//   scores  S = softmax of every token's logits (one warp per token, as in
//           select.cu), written expert-major [E, T] through shared memory
//           so each expert's column is contiguous;
//   pick    one block per expert takes its C best tokens by (score
//           descending, token ascending), the CPU's strict order: a radix
//           select finds the C-th largest score key in four 8-bit rounds,
//           then one ordered pass keeps every token above it and the first
//           `need` tokens equal to it, and numbers the kept tokens in token
//           order (block-wide prefix sums), which makes the rows;
//   index   index_rows_by_token: a stable sort of the rows by token gives
//           token_rows (a token's rows in row order, i.e. expert order),
//           and a histogram plus prefix sum gives token_offsets.
#include <cub/block/block_scan.cuh>

#include <cstdint>

#include "cuda/cuda_support.hpp"
#include "cuda/grid.cuh"
#include "cuda/scalar_ops.hpp"
#include "cuda/steps.hpp"
#include "cuda/warp_ops.cuh"

namespace frugal::router::cuda::steps {
namespace {

using grid::blocks_for;
using grid::item_index;
using grid::kThreads;

struct ScoreArgs {
  k::LogitArgs logits;
  float* scores_t = nullptr;
  TokenStats stats;
};

// Row floats: E plus one, so the transposed reads below spread over banks.
__host__ __device__ inline std::int64_t score_row_floats(std::int64_t experts) { return experts + 1; }

template <class In>
__global__ void __launch_bounds__(kThreads) scores_kernel(ScoreArgs a) {
  extern __shared__ float shared[];
  const unsigned lane = threadIdx.x % k::kWarp;
  const int warps = static_cast<int>(blockDim.x / k::kWarp);
  const std::int64_t T = a.logits.tokens;
  const int E = static_cast<int>(a.logits.experts);
  const auto row_floats = static_cast<int>(score_row_floats(E));
  float* p = nullptr;
  const std::int64_t t = k::token_row<In>(a.logits, row_floats, p);
  if (t >= 0) {  // no early return: the whole block meets at the barrier
    const k::Softmax sm = k::warp_softmax(p, E, lane);
    if (lane == 0) {
      a.stats.max[t] = sm.max;
      a.stats.inv[t] = sm.inv;
    }
  }
  __syncthreads();
  // The block's `warps` consecutive tokens of each expert are contiguous in
  // scores_t: consecutive threads write them.
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * warps;
  for (int i = static_cast<int>(threadIdx.x); i < E * warps; i += static_cast<int>(blockDim.x)) {
    const int e = i / warps;
    const int w = i % warps;
    if (first + w < T) a.scores_t[e * T + first + w] = shared[w * row_floats + e];
  }
}

constexpr int kPickThreads = 512;
using BlockScan = cub::BlockScan<int, kPickThreads>;

struct PickArgs {
  const float* scores_t = nullptr;
  std::int64_t tokens = 0;
  std::int64_t capacity = 0;
  std::int64_t* row_token = nullptr;
  float* row_weight = nullptr;
  std::uint32_t* row_token32 = nullptr;  // the sort keys of the token index
};

// The key of the capacity-th largest score of the column and how many
// tokens with exactly that key are kept (the lowest ones).
struct Threshold {
  std::uint32_t key = 0;
  std::int64_t equal_kept = 0;
};

__device__ Threshold find_threshold(const float* col, std::int64_t tokens, std::int64_t capacity) {
  __shared__ unsigned counts[256];
  __shared__ Threshold found;
  std::uint32_t prefix = 0;
  std::uint32_t mask = 0;
  std::int64_t need = capacity;  // keys still to take at and below the prefix
  for (int shift = 24; shift >= 0; shift -= 8) {
    for (int d = static_cast<int>(threadIdx.x); d < 256; d += kPickThreads) counts[d] = 0;
    __syncthreads();
    for (std::int64_t t = threadIdx.x; t < tokens; t += kPickThreads) {
      const std::uint32_t key = scalar::order_key(col[t]);
      if ((key & mask) == prefix) atomicAdd(&counts[(key >> shift) & 0xFFu], 1u);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      // Largest digit first: the digit holding the need-th largest key.
      int d = 255;
      for (; d > 0 && static_cast<std::int64_t>(counts[d]) < need; --d) need -= counts[d];
      found = Threshold{prefix | (static_cast<std::uint32_t>(d) << shift), need};
    }
    __syncthreads();
    prefix = found.key;
    need = found.equal_kept;
    mask |= 0xFFu << shift;
    __syncthreads();  // `found` is rewritten next round
  }
  return Threshold{prefix, need};
}

// Block e keeps expert e's C best tokens, in token order, as rows e C ...
__global__ void __launch_bounds__(kPickThreads) pick_kernel(PickArgs a) {
  __shared__ typename BlockScan::TempStorage scan;
  const std::int64_t e = blockIdx.x;
  const float* col = a.scores_t + e * a.tokens;
  const Threshold th = find_threshold(col, a.tokens, a.capacity);
  std::int64_t equal_before = 0;  // tokens equal to the threshold in earlier chunks
  std::int64_t kept_before = 0;
  for (std::int64_t base = 0; base < a.tokens && kept_before < a.capacity; base += kPickThreads) {
    const std::int64_t t = base + threadIdx.x;
    const float score = t < a.tokens ? col[t] : 0.0f;
    const std::uint32_t key = scalar::order_key(score);
    const bool above = t < a.tokens && key > th.key;
    const bool equal = t < a.tokens && key == th.key;
    int equal_rank = 0;
    int equal_total = 0;
    BlockScan(scan).ExclusiveSum(equal ? 1 : 0, equal_rank, equal_total);
    __syncthreads();
    const bool keep = above || (equal && equal_before + equal_rank < th.equal_kept);
    int at = 0;
    int kept_total = 0;
    BlockScan(scan).ExclusiveSum(keep ? 1 : 0, at, kept_total);
    __syncthreads();
    if (keep) {
      const std::int64_t row = e * a.capacity + kept_before + at;
      a.row_token[row] = t;
      a.row_weight[row] = score;
      a.row_token32[row] = static_cast<std::uint32_t>(t);
    }
    equal_before += equal_total;
    kept_before += kept_total;
  }
}

__global__ void token_counts_kernel(const std::uint32_t* row_token32, std::int64_t rows, std::int32_t* counts) {
  const std::int64_t r = item_index();
  if (r < rows) atomicAdd(&counts[row_token32[r]], 1);
}

__global__ void expert_layout_kernel(std::int64_t experts, std::int64_t capacity, std::int64_t* expert_offsets,
                                     std::int64_t* expert_demand) {
  const std::int64_t e = item_index();
  if (e <= experts) expert_offsets[e] = e * capacity;
  if (e < experts) expert_demand[e] = capacity;
}

}  // namespace

void expert_choice_scores(const Logits& logits, float* scores_t, const TokenStats& stats, cudaStream_t stream) {
  const ScoreArgs a{.logits = k::logit_args(logits), .scores_t = scores_t, .stats = stats};
  void (*kernel)(ScoreArgs) = scores_kernel<k::F32In>;
  if (logits.type == LogitType::bf16) kernel = scores_kernel<k::BF16In>;
  if (logits.type == LogitType::f16) kernel = scores_kernel<k::F16In>;
  const detail::RowLaunch l = detail::row_launch(logits.rows(), score_row_floats(logits.cols()), "expert_choice",
                                                 reinterpret_cast<const void*>(kernel));
  kernel<<<l.blocks, l.threads, l.shared, stream>>>(a);
  detail::check_launch("expert_choice scores");
}

void expert_choice_plan(const float* scores_t, std::int64_t tokens, std::int64_t experts, std::int64_t capacity,
                        const DevicePlan& plan, cudaStream_t stream) {
  const std::int64_t rows = experts * capacity;
  grid::Cub cub;
  cub.stream = stream;
  const auto index = [&](std::uint32_t* keys, std::uint32_t* keys_sorted, std::int64_t* row_ids, std::int32_t* counts) {
    cub.sort(keys, keys_sorted, row_ids, plan.token_rows, rows, grid::bits_for(tokens));
    cub.prefix(counts, plan.token_offsets, tokens);
  };
  index(nullptr, nullptr, nullptr, nullptr);  // sizes only

  std::uint32_t* keys = nullptr;  // row tokens, the sort keys
  std::uint32_t* keys_sorted = nullptr;
  std::int64_t* row_ids = nullptr;
  std::int32_t* counts = nullptr;  // rows per token
  std::uint8_t* temp = nullptr;
  detail::StreamScratch scratch(stream);
  scratch.add(keys, static_cast<std::size_t>(rows));
  scratch.add(keys_sorted, static_cast<std::size_t>(rows));
  scratch.add(row_ids, static_cast<std::size_t>(rows));
  scratch.add(counts, static_cast<std::size_t>(tokens));
  scratch.add(temp, cub.bytes);
  scratch.allocate();
  cub.temp = temp;
  cub.sizing = false;

  pick_kernel<<<static_cast<unsigned>(experts), kPickThreads, 0, stream>>>(PickArgs{.scores_t = scores_t,
                                                                                    .tokens = tokens,
                                                                                    .capacity = capacity,
                                                                                    .row_token = plan.row_token,
                                                                                    .row_weight = plan.row_weight,
                                                                                    .row_token32 = keys});
  detail::check_launch("expert_choice pick");

  detail::check(cudaMemsetAsync(counts, 0, static_cast<std::size_t>(tokens) * sizeof(std::int32_t), stream),
                "cudaMemsetAsync");
  token_counts_kernel<<<blocks_for(rows), kThreads, 0, stream>>>(keys, rows, counts);
  grid::iota_kernel<<<blocks_for(rows), kThreads, 0, stream>>>(row_ids, rows);
  expert_layout_kernel<<<blocks_for(experts + 1), kThreads, 0, stream>>>(experts, capacity, plan.expert_offsets,
                                                                         plan.expert_demand);
  detail::check_launch("expert_choice index");
  index(keys, keys_sorted, row_ids, counts);
}

}  // namespace frugal::router::cuda::steps
