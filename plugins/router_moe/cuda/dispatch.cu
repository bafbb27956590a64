// The token-choice dispatch plan on the device, equal to
// build_dispatch_plan (dispatch_plan.cpp) field by field:
//
//   1. demand: a histogram of the expert ids (integer atomics: exact in any
//      order);
//   2. the slots sorted by expert, stable: a radix sort of (expert, slot)
//      pairs whose input is in slot order, which is the counting sort the
//      CPU does (CUB's radix sort is stable);
//   3. kept: dropless keeps all; by_position keeps an expert's first C
//      slots in that order (rank in its segment < C); by_probability sorts
//      the slots again by (expert, weight descending), stable, so equal
//      weights stay in slot order (the CPU's tie rule), and keeps ranks < C;
//   4. rows: a prefix sum of the kept flags over the expert-major order
//      numbers the kept slots expert by expert, in slot order inside each
//      (the CPU's row counter); expert_offsets[e] is that sum where expert
//      e's segment starts;
//   5. the token index: a prefix sum of the kept flags in slot order gives
//      token_offsets[t] (at slot t k) and each kept slot's place in
//      token_rows;
//   6. rows [N, max_rows) get row_token = token_rows = -1, row_weight = 0.
//
// Counts and positions are int32 inside (slots < 2^31, checked by route()),
// int64 in the plan.
#include <algorithm>
#include <cstdint>

#include "cuda/cuda_support.hpp"
#include "cuda/grid.cuh"
#include "cuda/scalar_ops.hpp"
#include "cuda/steps.hpp"

namespace frugal::router::cuda::steps {
namespace {

using grid::blocks_for;
using grid::item_index;
using grid::kThreads;

// demand[e] += number of ids equal to e; counts per block in shared memory
// first when the experts fit (kShared), straight to global memory otherwise.
template <bool kShared>
__global__ void histogram_kernel(const std::int32_t* ids, std::int64_t n, int experts, std::int64_t* demand) {
  extern __shared__ unsigned counts[];
  auto* total = reinterpret_cast<unsigned long long*>(demand);
  if constexpr (kShared) {
    for (int e = static_cast<int>(threadIdx.x); e < experts; e += static_cast<int>(blockDim.x)) counts[e] = 0;
    __syncthreads();
  }
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = item_index(); i < n; i += step) {
    if constexpr (kShared) {
      atomicAdd(&counts[ids[i]], 1u);
    } else {
      atomicAdd(&total[ids[i]], 1ull);
    }
  }
  if constexpr (kShared) {
    __syncthreads();
    for (int e = static_cast<int>(threadIdx.x); e < experts; e += static_cast<int>(blockDim.x)) {
      if (counts[e] != 0) atomicAdd(&total[e], static_cast<unsigned long long>(counts[e]));
    }
  }
}

// by_position: kept when among the first C of its expert's segment.
__global__ void position_flags(const std::uint32_t* experts_sorted, const std::int64_t* segment, std::int64_t n,
                               std::int64_t capacity, std::int32_t* flags) {
  const std::int64_t i = item_index();
  if (i < n) flags[i] = i - segment[experts_sorted[i]] < capacity ? 1 : 0;
}

__global__ void weight_keys(const std::int32_t* ids, const float* weights, std::int64_t n, std::uint64_t* keys) {
  const std::int64_t s = item_index();
  if (s < n) keys[s] = scalar::expert_weight_key(ids[s], weights[s]);
}

// by_probability: kept when among the C best of its expert (keys sorted by
// expert, then weight descending, then slot).
__global__ void probability_kept(const std::uint64_t* keys_sorted, const std::int32_t* slots,
                                 const std::int64_t* segment, std::int64_t n, std::int64_t capacity,
                                 std::uint8_t* kept) {
  const std::int64_t i = item_index();
  if (i < n) kept[slots[i]] = i - segment[keys_sorted[i] >> 32] < capacity ? 1 : 0;
}

// The kept flags in expert-major order.
__global__ void gather_flags(const std::int32_t* slots_sorted, const std::uint8_t* kept, std::int64_t n,
                             std::int32_t* flags) {
  const std::int64_t i = item_index();
  if (i < n) flags[i] = kept[slots_sorted[i]];
}

struct ScatterArgs {
  const std::int32_t* slots_sorted = nullptr;
  const std::int32_t* flags = nullptr;  // null: dropless (every slot kept, row = position)
  const std::int32_t* rows = nullptr;   // exclusive prefix sum of flags
  std::int32_t* slot_flags = nullptr;   // out: kept flags in slot order (null when dropless)
  const float* weights = nullptr;
  std::int64_t slots = 0;
  std::int64_t k = 1;
};

// Position i of the expert-major order: its slot's row, or the drop.
__global__ void scatter_rows(ScatterArgs a, DevicePlan p) {
  const std::int64_t i = item_index();
  if (i >= a.slots) return;
  const std::int32_t s = a.slots_sorted[i];
  const bool dropless = a.flags == nullptr;
  const bool kept = dropless || a.flags[i] != 0;
  const std::int64_t row = dropless ? i : a.rows[i];
  if (kept && row < p.max_rows) {
    p.slot_row[s] = row;
    p.dropped[s] = 0;
    p.row_token[row] = s / a.k;
    p.row_weight[row] = a.weights[s];
    // Dropless, token t's rows are slots t k .. t k + k - 1 in order.
    if (dropless) p.token_rows[s] = row;
  } else {
    p.slot_row[s] = -1;
    p.dropped[s] = 1;
  }
  if (a.slot_flags != nullptr) a.slot_flags[s] = kept ? 1 : 0;
}

// expert_offsets[e] = kept rows before expert e's segment, e in [0, E].
__global__ void expert_offsets_kernel(const std::int64_t* segment, const std::int32_t* rows, std::int64_t experts,
                                      std::int64_t* expert_offsets) {
  const std::int64_t e = item_index();
  if (e <= experts) expert_offsets[e] = rows[segment[e]];
}

// token_offsets[t] = kept slots before slot t k; token_rows in slot order.
__global__ void token_index_kernel(const std::int32_t* before, std::int64_t tokens, std::int64_t k, DevicePlan p) {
  const std::int64_t i = item_index();
  if (i <= tokens) p.token_offsets[i] = before[i * k];
  if (i < tokens * k) {
    const std::int64_t row = p.slot_row[i];
    const std::int64_t at = before[i];
    if (row >= 0 && at < p.max_rows) p.token_rows[at] = row;
  }
}

__global__ void token_offsets_dropless(std::int64_t tokens, std::int64_t k, std::int64_t* token_offsets) {
  const std::int64_t t = item_index();
  if (t <= tokens) token_offsets[t] = t * k;
}

// Rows [N, max_rows), N = *kept_rows: unused.
__global__ void unused_rows(const std::int32_t* kept_rows, DevicePlan p) {
  const std::int64_t r = item_index();
  if (r >= p.max_rows || r < *kept_rows) return;
  p.row_token[r] = -1;
  p.token_rows[r] = -1;
  p.row_weight[r] = 0.0f;
}

struct Buffers {
  std::int32_t* slots = nullptr;  // [n] 0 .. n-1
  std::uint32_t* experts_sorted = nullptr;
  std::int32_t* slots_sorted = nullptr;
  std::int64_t* segment = nullptr;       // [E + 1] demand prefix: expert e's slots start here
  std::int32_t* flags = nullptr;         // [n] kept, expert-major order
  std::int32_t* rows = nullptr;          // [n + 1] prefix of flags
  std::int32_t* slot_flags = nullptr;    // [n] kept, slot order
  std::int32_t* before = nullptr;        // [n + 1] prefix of slot_flags
  std::uint64_t* weight_keys = nullptr;  // by_probability: [n] keys, [n] sorted keys, [n] slots, [n] kept
  std::uint64_t* weight_keys_sorted = nullptr;
  std::int32_t* slots_by_weight = nullptr;
  std::uint8_t* kept = nullptr;
};

// The whole sequence; with cub.sizing only the CUB sizes are computed.
void run(const Routed& r, DropPolicy policy, std::int64_t capacity, const DevicePlan& p, const Buffers& b,
         grid::Cub& cub) {
  const std::int64_t n = r.tokens * r.k;
  const std::int64_t E = r.experts;
  const bool dropless = policy == DropPolicy::dropless;
  const cudaStream_t stream = cub.stream;
  const auto* ids = reinterpret_cast<const std::uint32_t*>(r.expert_ids);  // all in [0, E)
  std::int64_t* segment = dropless ? p.expert_offsets : b.segment;

  if (!cub.sizing) {
    detail::check(cudaMemsetAsync(p.expert_demand, 0, static_cast<std::size_t>(E) * sizeof(std::int64_t), stream),
                  "cudaMemsetAsync");
    const bool shared = E * static_cast<std::int64_t>(sizeof(unsigned)) <= 32 * 1024;
    const unsigned blocks = std::min<unsigned>(blocks_for(n), 1024);
    if (shared) {
      histogram_kernel<true><<<blocks, kThreads, static_cast<std::size_t>(E) * sizeof(unsigned), stream>>>(
          r.expert_ids, n, static_cast<int>(E), p.expert_demand);
    } else {
      histogram_kernel<false><<<blocks, kThreads, 0, stream>>>(r.expert_ids, n, static_cast<int>(E), p.expert_demand);
    }
    grid::iota_kernel<<<blocks_for(n), kThreads, 0, stream>>>(b.slots, n);
    detail::check_launch("expert histogram");
  }
  cub.sort(ids, b.experts_sorted, b.slots, b.slots_sorted, n, grid::bits_for(E));
  cub.prefix(p.expert_demand, segment, E);

  if (dropless) {
    if (cub.sizing) return;
    const ScatterArgs a{.slots_sorted = b.slots_sorted, .weights = r.weights, .slots = n, .k = r.k};
    scatter_rows<<<blocks_for(n), kThreads, 0, stream>>>(a, p);
    token_offsets_dropless<<<blocks_for(r.tokens + 1), kThreads, 0, stream>>>(r.tokens, r.k, p.token_offsets);
    detail::check_launch("dispatch rows");
    return;
  }

  if (policy == DropPolicy::by_probability) {
    if (!cub.sizing) weight_keys<<<blocks_for(n), kThreads, 0, stream>>>(r.expert_ids, r.weights, n, b.weight_keys);
    cub.sort(b.weight_keys, b.weight_keys_sorted, b.slots, b.slots_by_weight, n, 32 + grid::bits_for(E));
    if (!cub.sizing) {
      probability_kept<<<blocks_for(n), kThreads, 0, stream>>>(b.weight_keys_sorted, b.slots_by_weight, segment, n,
                                                               capacity, b.kept);
      gather_flags<<<blocks_for(n), kThreads, 0, stream>>>(b.slots_sorted, b.kept, n, b.flags);
    }
  } else if (!cub.sizing) {
    position_flags<<<blocks_for(n), kThreads, 0, stream>>>(b.experts_sorted, segment, n, capacity, b.flags);
  }
  cub.prefix(b.flags, b.rows, n);
  if (!cub.sizing) {
    const ScatterArgs a{.slots_sorted = b.slots_sorted,
                        .flags = b.flags,
                        .rows = b.rows,
                        .slot_flags = b.slot_flags,
                        .weights = r.weights,
                        .slots = n,
                        .k = r.k};
    scatter_rows<<<blocks_for(n), kThreads, 0, stream>>>(a, p);
    expert_offsets_kernel<<<blocks_for(E + 1), kThreads, 0, stream>>>(segment, b.rows, E, p.expert_offsets);
    detail::check_launch("dispatch rows");
  }
  cub.prefix(b.slot_flags, b.before, n);
  if (!cub.sizing) {
    token_index_kernel<<<blocks_for(std::max(n, r.tokens + 1)), kThreads, 0, stream>>>(b.before, r.tokens, r.k, p);
    unused_rows<<<blocks_for(p.max_rows), kThreads, 0, stream>>>(b.rows + n, p);
    detail::check_launch("token index");
  }
}

}  // namespace

void token_choice_plan(const Routed& routed, DropPolicy policy, std::int64_t capacity, const DevicePlan& plan,
                       cudaStream_t stream) {
  const auto n = static_cast<std::size_t>(routed.tokens * routed.k);
  grid::Cub cub;
  cub.stream = stream;
  run(routed, policy, capacity, plan, Buffers{}, cub);  // sizes only

  Buffers b;
  detail::StreamScratch scratch(stream);
  scratch.add(b.slots, n);
  scratch.add(b.experts_sorted, n);
  scratch.add(b.slots_sorted, n);
  if (policy != DropPolicy::dropless) {
    scratch.add(b.segment, static_cast<std::size_t>(routed.experts) + 1);
    scratch.add(b.flags, n);
    scratch.add(b.rows, n + 1);
    scratch.add(b.slot_flags, n);
    scratch.add(b.before, n + 1);
  }
  if (policy == DropPolicy::by_probability) {
    scratch.add(b.weight_keys, n);
    scratch.add(b.weight_keys_sorted, n);
    scratch.add(b.slots_by_weight, n);
    scratch.add(b.kept, n);
  }
  std::uint8_t* temp = nullptr;
  scratch.add(temp, cub.bytes);
  scratch.allocate();
  cub.temp = temp;
  cub.sizing = false;
  run(routed, policy, capacity, plan, b, cub);
}

}  // namespace frugal::router::cuda::steps
