// permute and combine: row gathers, bandwidth-bound. One warp per row
// (permute) or per token (combine), 16-byte accesses when every address,
// stride and row length allows them, narrower ones otherwise. Row offsets
// are int64 (rows x hidden passes 2^31).
//
// Each warp keeps several loads in flight before it uses them (kUnroll
// vectors of a row in permute; kBatch rows x kCombineUnroll vectors in
// combine): one outstanding load per warp would leave HBM mostly idle.
//
// combine adds a token's rows in token_rows order as the CPU does, acc =
// (y * w) + acc with two roundings (built with --fmad=false) and the host's
// NaN bits (scalar_ops.hpp), then narrows once.
#include <cstdint>
#include <string>

#include "algorithms/types.hpp"
#include "cuda/cuda_ops.hpp"
#include "cuda/cuda_support.hpp"
#include "cuda/scalar_ops.hpp"

namespace frugal::router::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kUnroll = 4;         // permute: vectors of a row per lane in flight
constexpr int kCombineUnroll = 2;  // combine: vectors per lane ...
constexpr int kBatch = 4;          // ... of this many rows in flight

bool aligned(const void* p, std::size_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

// Enough warps to fill the device, one row (token) per warp at a time.
unsigned warp_blocks(std::int64_t items) {
  const std::int64_t want = static_cast<std::int64_t>(detail::multiprocessors()) * 2048 / kThreads;
  const std::int64_t needed = (items + kWarps - 1) / kWarps;
  return static_cast<unsigned>(needed < want ? needed : want);
}

__device__ __forceinline__ std::int64_t warp_id() {
  return (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
}
__device__ __forceinline__ std::int64_t warp_count() { return static_cast<std::int64_t>(gridDim.x) * blockDim.x / 32; }

// ---------------------------------------------------------------------------
// permute: bytes, V wide per access
// ---------------------------------------------------------------------------

struct PermuteArgs {
  const std::int64_t* row_token = nullptr;
  std::int64_t rows = 0;
  const char* x = nullptr;
  std::int64_t x_pitch = 0;  // bytes
  char* out = nullptr;
  std::int64_t out_pitch = 0;
  std::int64_t vectors = 0;  // V-sized pieces per row
};

template <class V>
__global__ void __launch_bounds__(kThreads) permute_kernel(PermuteArgs a) {
  const unsigned lane = threadIdx.x % 32;
  for (std::int64_t r = warp_id(); r < a.rows; r += warp_count()) {
    const std::int64_t t = a.row_token[r];
    if (t < 0) continue;  // an unused row
    const V* src = reinterpret_cast<const V*>(a.x + t * a.x_pitch);
    V* dst = reinterpret_cast<V*>(a.out + r * a.out_pitch);
    for (std::int64_t v = lane; v < a.vectors; v += 32 * kUnroll) {
      V piece[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        if (v + 32 * u < a.vectors) piece[u] = src[v + 32 * u];
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        if (v + 32 * u < a.vectors) dst[v + 32 * u] = piece[u];
      }
    }
  }
}

template <class V>
void launch_permute(PermuteArgs a, std::int64_t row_bytes, cudaStream_t stream) {
  a.vectors = row_bytes / static_cast<std::int64_t>(sizeof(V));
  permute_kernel<V><<<warp_blocks(a.rows), kThreads, 0, stream>>>(a);
}

// The widest access that divides every address, pitch and the row length.
std::size_t widest_access(std::uintptr_t bits) {
  for (std::size_t w = 16; w > 1; w /= 2) {
    if (bits % w == 0) return w;
  }
  return 1;
}

// ---------------------------------------------------------------------------
// combine: N elements per access
// ---------------------------------------------------------------------------

// fp32 rows as they are; bf16 rows as uint16 bits, widened exactly and
// narrowed as quant::fp32_to_bf16 (nearest even, NaN kept and quieted).
__device__ __forceinline__ float widen(float v) { return v; }
__device__ __forceinline__ float widen(std::uint16_t v) { return quant::cuda::dm::bf16_to_fp32(v); }
__device__ __forceinline__ void narrow(float v, float* to) { *to = v; }
__device__ __forceinline__ void narrow(float v, std::uint16_t* to) { *to = quant::cuda::dm::fp32_to_bf16(v); }

template <class S, int N>
struct alignas(sizeof(S) * N) Pack {
  S e[N];
};

struct CombineArgs {
  const std::int64_t* token_offsets = nullptr;
  const std::int64_t* token_rows = nullptr;
  const float* row_weight = nullptr;
  std::int64_t tokens = 0;
  const void* y = nullptr;
  std::int64_t y_stride = 0;  // elements
  void* out = nullptr;
  std::int64_t out_stride = 0;
  std::int64_t vectors = 0;  // N-element pieces per row
};

// S: the row storage type (float or bf16 bits); N elements per access.
template <class S, int N>
__global__ void __launch_bounds__(kThreads) combine_kernel(CombineArgs a) {
  using P = Pack<S, N>;
  const unsigned lane = threadIdx.x % 32;
  const S* y = static_cast<const S*>(a.y);
  S* out = static_cast<S*>(a.out);
  for (std::int64_t t = warp_id(); t < a.tokens; t += warp_count()) {
    const std::int64_t first = a.token_offsets[t];
    const std::int64_t last = a.token_offsets[t + 1];
    // v0 walks the row a warp's width of vectors at a time; lanes past the
    // row's end skip their loads and stores.
    for (std::int64_t v0 = 0; v0 < a.vectors; v0 += 32 * kCombineUnroll) {
      float acc[kCombineUnroll][N];
#pragma unroll
      for (int u = 0; u < kCombineUnroll; ++u) {
#pragma unroll
        for (int j = 0; j < N; ++j) acc[u][j] = 0.0f;
      }
      for (std::int64_t i = first; i < last; i += kBatch) {
        const int batch = last - i < kBatch ? static_cast<int>(last - i) : kBatch;
        std::int64_t row[kBatch];
        float w[kBatch];
#pragma unroll
        for (int b = 0; b < kBatch; ++b) {
          row[b] = b < batch ? a.token_rows[i + b] : 0;
          w[b] = b < batch ? a.row_weight[row[b]] : 0.0f;
        }
        P piece[kBatch][kCombineUnroll] = {};
#pragma unroll
        for (int b = 0; b < kBatch; ++b) {
#pragma unroll
          for (int u = 0; u < kCombineUnroll; ++u) {
            const std::int64_t v = v0 + lane + 32 * u;
            if (b < batch && v < a.vectors) {
              piece[b][u] = *reinterpret_cast<const P*>(y + row[b] * a.y_stride + v * N);
            }
          }
        }
        // In token_rows order: batch member b before b + 1.
#pragma unroll
        for (int b = 0; b < kBatch; ++b) {
          if (b < batch) {
#pragma unroll
            for (int u = 0; u < kCombineUnroll; ++u) {
#pragma unroll
              for (int j = 0; j < N; ++j) acc[u][j] = scalar::combine_step(acc[u][j], w[b], widen(piece[b][u].e[j]));
            }
          }
        }
      }
#pragma unroll
      for (int u = 0; u < kCombineUnroll; ++u) {
        const std::int64_t v = v0 + lane + 32 * u;
        if (v < a.vectors) {
          P o;
#pragma unroll
          for (int j = 0; j < N; ++j) narrow(acc[u][j], &o.e[j]);
          *reinterpret_cast<P*>(out + t * a.out_stride + v * N) = o;
        }
      }
    }
  }
}

template <class S, int N>
void launch_combine(CombineArgs a, std::int64_t hidden, cudaStream_t stream) {
  a.vectors = hidden / N;
  combine_kernel<S, N><<<warp_blocks(a.tokens), kThreads, 0, stream>>>(a);
}

std::size_t element_bytes(Element e) { return e == Element::f32 ? 4 : 2; }

void check_move(const char* what, const void* from, std::int64_t from_stride, const void* to, std::int64_t to_stride,
                std::int64_t hidden) {
  if (hidden < 1) throw RouterError(std::string("router_moe CUDA ") + what + ": hidden is not positive");
  if (from_stride < hidden || to_stride < hidden) {
    throw RouterError(std::string("router_moe CUDA ") + what + ": a row stride is below hidden");
  }
  if (from == nullptr || to == nullptr) throw RouterError(std::string("router_moe CUDA ") + what + ": null rows");
}

}  // namespace

void permute(const int64_t* row_token, int64_t max_rows, const void* x, int64_t x_stride, void* out, int64_t out_stride,
             int64_t hidden, Element element, void* stream) {
  if (max_rows == 0) return;
  check_move("permute", x, x_stride, out, out_stride, hidden);
  const detail::OnDeviceOf on_device(x, "permute input");
  const auto es = static_cast<std::int64_t>(element_bytes(element));
  const PermuteArgs a{.row_token = row_token,
                      .rows = max_rows,
                      .x = static_cast<const char*>(x),
                      .x_pitch = x_stride * es,
                      .out = static_cast<char*>(out),
                      .out_pitch = out_stride * es};
  const std::int64_t row_bytes = hidden * es;
  const auto all = reinterpret_cast<std::uintptr_t>(x) | reinterpret_cast<std::uintptr_t>(out) |
                   static_cast<std::uintptr_t>(a.x_pitch) | static_cast<std::uintptr_t>(a.out_pitch) |
                   static_cast<std::uintptr_t>(row_bytes);
  const auto s = static_cast<cudaStream_t>(stream);
  switch (widest_access(all)) {
    case 16: launch_permute<uint4>(a, row_bytes, s); break;
    case 8: launch_permute<uint2>(a, row_bytes, s); break;
    case 4: launch_permute<std::uint32_t>(a, row_bytes, s); break;
    default: launch_permute<std::uint16_t>(a, row_bytes, s); break;  // bf16 rows: 2-byte aligned at least
  }
  detail::check_launch("permute");
}

void combine(const int64_t* token_offsets, const int64_t* token_rows, const float* row_weight, int64_t tokens,
             const void* y, int64_t y_stride, void* out, int64_t out_stride, int64_t hidden, Element element,
             void* stream) {
  if (tokens == 0) return;
  check_move("combine", y, y_stride, out, out_stride, hidden);
  const detail::OnDeviceOf on_device(out, "combine output");
  const CombineArgs a{.token_offsets = token_offsets,
                      .token_rows = token_rows,
                      .row_weight = row_weight,
                      .tokens = tokens,
                      .y = y,
                      .y_stride = y_stride,
                      .out = out,
                      .out_stride = out_stride};
  const std::int64_t n = 16 / static_cast<std::int64_t>(element_bytes(element));  // elements per 16 bytes
  const bool wide = aligned(y, 16) && aligned(out, 16) && y_stride % n == 0 && out_stride % n == 0 && hidden % n == 0;
  const auto s = static_cast<cudaStream_t>(stream);
  if (element == Element::f32) {
    wide ? launch_combine<float, 4>(a, hidden, s) : launch_combine<float, 1>(a, hidden, s);
  } else {
    wide ? launch_combine<std::uint16_t, 8>(a, hidden, s) : launch_combine<std::uint16_t, 1>(a, hidden, s);
  }
  detail::check_launch("combine");
}

}  // namespace frugal::router::cuda
