// Device pieces shared by quantize.cu and dequantize.cu: element types,
// 16-byte vector access, fp8 encoding, warp reductions, and the launch
// shape of the row-chunked kernels. Internal to cuda/.
#pragma once

#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cuda/device_math.hpp"

namespace frugal::quant::cuda::k {

inline constexpr unsigned kFullMask = 0xFFFF'FFFFu;
inline constexpr int kThreads = 256;  // every kernel: 8 warps per block

// ---------------------------------------------------------------------------
// Element types: storage, exact widening, the reference's narrowing (NaN
// bits included)
// ---------------------------------------------------------------------------

struct F32 {
  using Storage = float;
  __device__ __forceinline__ static float widen(float x) { return x; }
  __device__ __forceinline__ static float narrow(float x) { return x; }
};
struct F16 {
  using Storage = std::uint16_t;
  // The hardware conversion: exact, and equal to dm::fp16_to_fp32 except in
  // a NaN's payload, which never reaches an output (codes of NaN are the
  // canonical NaN code, amaxes are canonicalised, fakes come from codes).
  __device__ __forceinline__ static float widen(std::uint16_t x) { return __half2float(__ushort_as_half(x)); }
  __device__ __forceinline__ static std::uint16_t narrow(float x) { return dm::fp32_to_fp16(x); }
};
struct BF16 {
  using Storage = std::uint16_t;
  __device__ __forceinline__ static float widen(std::uint16_t x) { return dm::bf16_to_fp32(x); }
  __device__ __forceinline__ static std::uint16_t narrow(float x) { return dm::fp32_to_bf16(x); }
};

// Elements per 16-byte access.
template <class T>
inline constexpr int kVec16 = static_cast<int>(16 / sizeof(typename T::Storage));

// N elements of S in one aligned access (16 bytes for the vector paths).
template <class S, int N>
struct alignas(sizeof(S) * N) Pack {
  S e[N];
};

template <class S, int N>
__device__ __forceinline__ Pack<S, N> load_pack(const S* p) {
  return *reinterpret_cast<const Pack<S, N>*>(p);
}
template <class S, int N>
__device__ __forceinline__ void store_pack(S* p, const Pack<S, N>& v) {
  *reinterpret_cast<Pack<S, N>*>(p) = v;
}

// ---------------------------------------------------------------------------
// fp8 encoding: cuda_fp8.h's conversion (the definition the CPU reference
// is tested bit-exact against), two elements per instruction when saturating
// ---------------------------------------------------------------------------

struct Fp8Mode {
  __nv_fp8_interpretation_t interp = __NV_E4M3;
  __nv_saturation_t sat = __NV_SATFINITE;
  int format = 0;  // 0 = E4M3FN, 1 = E5M2 (dm::fp8_to_fp32)
};

// Codes of a (low byte) and b (high byte).
__device__ __forceinline__ std::uint16_t encode2(float a, float b, const Fp8Mode& m) {
  return __nv_cvt_float2_to_fp8x2(make_float2(a, b), m.sat, m.interp);
}
__device__ __forceinline__ std::uint8_t encode1(float a, const Fp8Mode& m) {
  return __nv_cvt_float_to_fp8(a, m.sat, m.interp);
}

// N codes of f[i] * scale into q (N is 1 or even). The mode is tested once
// per call, so each pair is one conversion instruction when saturating.
template <int N>
__device__ __forceinline__ void encode_scaled(const float* f, float scale, const Fp8Mode& m, std::uint8_t* q) {
  if constexpr (N == 1) {
    q[0] = encode1(f[0] * scale, m);
  } else {
    const auto pairs = [&](__nv_saturation_t sat, __nv_fp8_interpretation_t interp) {
#pragma unroll
      for (int j = 0; j < N; j += 2) {
        const std::uint16_t two = __nv_cvt_float2_to_fp8x2(make_float2(f[j] * scale, f[j + 1] * scale), sat, interp);
        q[j] = static_cast<std::uint8_t>(two & 0xFFu);
        q[j + 1] = static_cast<std::uint8_t>(two >> 8);
      }
    };
    if (m.sat == __NV_SATFINITE) {
      if (m.format == 0) {
        pairs(__NV_SATFINITE, __NV_E4M3);
      } else {
        pairs(__NV_SATFINITE, __NV_E5M2);
      }
    } else {
      pairs(__NV_NOSAT, m.interp);
    }
  }
}

// The fake-quantized value of a code: fp8_to_fp32(q) * scale_inv, with the
// host's NaN bits, narrowed to T.
template <class T>
__device__ __forceinline__ typename T::Storage fake_of(std::uint8_t q, float scale_inv, int format) {
  return T::narrow(dm::mul_as_host(dm::fp8_to_fp32(q, format), scale_inv));
}

// ---------------------------------------------------------------------------
// Reductions over unsigned amax keys
// ---------------------------------------------------------------------------
//
// In the loops a key is just the bits of |x| (abs_key): they order like the
// magnitudes and every NaN lies above +Inf, so an unsigned max propagates
// NaN. Which NaN pattern wins does not matter to the scales (any NaN is
// non-finite); the whole-tensor amax is written only through block_max_to,
// which turns every NaN into the canonical quiet NaN first (dm::amax_key's
// result, the CPU reference's bits).

__device__ __forceinline__ std::uint32_t abs_key(float x) { return dm::f2u(x) & dm::kAbsMask; }

__device__ __forceinline__ std::uint32_t warp_max(std::uint32_t v) { return __reduce_max_sync(kFullMask, v); }

// The block-wide max of v, then one atomicMax into *out (when not null).
// Every thread of the block must call it.
__device__ __forceinline__ void block_max_to(std::uint32_t v, std::uint32_t* out) {
  __shared__ std::uint32_t partial[32];
  const unsigned tid = threadIdx.x + threadIdx.y * blockDim.x;
  const unsigned warps = (blockDim.x * blockDim.y + 31) / 32;
  v = warp_max(v);
  if ((tid & 31) == 0) partial[tid >> 5] = v;
  __syncthreads();
  if (tid < 32) {
    std::uint32_t w = tid < warps ? partial[tid] : 0u;
    w = warp_max(w);
    if (w > dm::kInfBits) w = dm::kQuietNan;
    if (tid == 0 && out != nullptr && w != 0) atomicMax(out, w);
  }
}

// Lanes with equal keys form contiguous runs (lanes of one block column);
// returns to each run's first lane the max of v over its run.
__device__ __forceinline__ std::uint32_t run_max_to_head(std::uint32_t v, std::uint32_t key) {
  const unsigned lane = threadIdx.x & 31u;
#pragma unroll
  for (unsigned off = 1; off < 32; off <<= 1) {
    const std::uint32_t ov = __shfl_down_sync(kFullMask, v, off);
    const std::uint32_t okey = __shfl_down_sync(kFullMask, key, off);
    if (lane + off < 32 && okey == key) v = dm::max_u32(v, ov);
  }
  return v;
}

// True on the first lane of a run of equal keys.
__device__ __forceinline__ bool run_head(std::uint32_t key) {
  const unsigned lane = threadIdx.x & 31u;
  const std::uint32_t prev = __shfl_up_sync(kFullMask, key, 1);
  return lane == 0 || prev != key;
}

// The max of v over aligned groups of `group` lanes (a power of two <= 32),
// returned to every lane of the group.
__device__ __forceinline__ std::uint32_t group_max(std::uint32_t v, unsigned group) {
  for (unsigned off = group >> 1; off > 0; off >>= 1) v = dm::max_u32(v, __shfl_xor_sync(kFullMask, v, off));
  return v;
}

// ---------------------------------------------------------------------------
// Row-chunked launch shape (block recipes, dequantize)
// ---------------------------------------------------------------------------
//
// threadIdx.x runs along a row over vectors (whole warps, so each warp sits
// in one row at a time), threadIdx.y picks a "thread row", and each thread
// row walks a contiguous chunk of matrix rows. A chunk that is a multiple of
// the block height ends where a block row ends, so per-block partial results
// change rarely.

struct ChunkShape {
  dim3 grid;
  dim3 block;
  std::int64_t chunk = 1;  // matrix rows per thread row
};

inline ChunkShape chunk_shape(std::int64_t rows, std::int64_t vecs_per_row, std::int64_t block_rows, int sms) {
  ChunkShape s;
  const std::int64_t warps_needed = (vecs_per_row + 31) / 32;
  unsigned wx = 1;
  while (wx < 8 && static_cast<std::int64_t>(wx) < warps_needed) wx <<= 1;
  const unsigned wy = 8 / wx;
  s.block = dim3(32 * wx, wy, 1);
  const std::int64_t grid_x = (vecs_per_row + 32 * wx - 1) / (32 * wx);
  const std::int64_t threads_x = grid_x * 32 * wx;
  // Enough thread rows to fill every multiprocessor (2048 threads each).
  const std::int64_t want =
      std::max<std::int64_t>(1, (static_cast<std::int64_t>(sms) * 2048 + threads_x - 1) / threads_x);
  std::int64_t thread_rows = std::min(rows, want);
  std::int64_t chunk = (rows + thread_rows - 1) / thread_rows;
  if (block_rows > 1 && block_rows < chunk) chunk = (chunk + block_rows - 1) / block_rows * block_rows;
  for (;;) {
    thread_rows = (rows + chunk - 1) / chunk;
    if ((thread_rows + wy - 1) / wy <= 65535) break;
    chunk *= 2;
  }
  s.chunk = chunk;
  s.grid = dim3(static_cast<unsigned>(grid_x), static_cast<unsigned>((thread_rows + wy - 1) / wy), 1);
  return s;
}

}  // namespace frugal::quant::cuda::k
