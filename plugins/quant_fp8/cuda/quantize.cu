// quantize_cuda: the kernels of quant_op.hpp's QuantizeOp for FP8 codes.
//
// Per-tensor recipes (delayed; current over the whole tensor):
//   delayed:  one pass: cast with the fixed scale, whole-tensor amax (an
//             atomicMax on amax keys), optional fake, optional transposed
//             copy through a shared-memory tile;
//   current:  an amax pass, then the same cast pass with the scale computed
//             on the device from that amax (dm::current_scale).
// Block recipes (per_channel, block, mx), scale per block of
// block_rows x block_cols:
//   fused:    when a block is one row of at most a warp's reach (1x32 MX,
//             1x128, short per-row channels), one pass: each warp reduces its
//             blocks' amaxes with shuffles, computes their scales and casts;
//   generic:  an amax pass into a per-block buffer (atomicMax per run of a
//             warp and per block row of a row chunk), then the cast pass.
// Every pass reads 16 bytes per thread where the addresses allow it, and
// falls back to element-wise access where they do not.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cuda/cuda_ops.hpp"
#include "cuda/cuda_support.hpp"
#include "cuda/kernels.cuh"
#include "frugal/tensor.h"

namespace frugal::quant::cuda {
namespace {

using detail::aligned;
using detail::check;
using detail::check_launch;
using k::kThreads;
using k::Pack;

// ---------------------------------------------------------------------------
// Codes out (VEC bytes in one store)
// ---------------------------------------------------------------------------

template <int N>
__device__ __forceinline__ void store_codes(std::uint8_t* p, const std::uint8_t* q) {
  if constexpr (N == 1) {
    p[0] = q[0];
  } else if constexpr (N == 4) {
    *reinterpret_cast<std::uint32_t*>(p) = static_cast<std::uint32_t>(q[0]) | (static_cast<std::uint32_t>(q[1]) << 8) |
                                           (static_cast<std::uint32_t>(q[2]) << 16) |
                                           (static_cast<std::uint32_t>(q[3]) << 24);
  } else {
    static_assert(N == 8, "code vectors are 1, 4 or 8 bytes");
    uint2 w;
    w.x = static_cast<std::uint32_t>(q[0]) | (static_cast<std::uint32_t>(q[1]) << 8) |
          (static_cast<std::uint32_t>(q[2]) << 16) | (static_cast<std::uint32_t>(q[3]) << 24);
    w.y = static_cast<std::uint32_t>(q[4]) | (static_cast<std::uint32_t>(q[5]) << 8) |
          (static_cast<std::uint32_t>(q[6]) << 16) | (static_cast<std::uint32_t>(q[7]) << 24);
    *reinterpret_cast<uint2*>(p) = w;
  }
}

// ---------------------------------------------------------------------------
// Per-tensor scales
// ---------------------------------------------------------------------------

// The scale of a per-tensor pass: fixed (delayed) or current_scale of an
// amax computed by an earlier pass on the same stream.
struct TensorScale {
  int from_amax = 0;
  float scale = 1.0f;
  float scale_inv = 1.0f;
  const std::uint32_t* amax = nullptr;
  float fp8_max = 448.0f;
};

__device__ __forceinline__ dm::ScalePair resolve(const TensorScale& s) {
  if (s.from_amax == 0) {
    dm::ScalePair p;
    p.scale = s.scale;
    p.scale_inv = s.scale_inv;
    return p;
  }
  return dm::current_scale(dm::u2f(*s.amax), s.fp8_max);
}

// Where a per-tensor pass writes its scales ([0]: output's, [1]: output_t's);
// thread 0 of block 0 writes them.
struct TensorScaleSink {
  float* scale_inv[2] = {nullptr, nullptr};
  float* scale[2] = {nullptr, nullptr};
};

__device__ __forceinline__ void write_sink(const TensorScaleSink& sink, dm::ScalePair p) {
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    if (sink.scale_inv[i] != nullptr) *sink.scale_inv[i] = p.scale_inv;
    if (sink.scale[i] != nullptr) *sink.scale[i] = p.scale;
  }
}

// ---------------------------------------------------------------------------
// Per-tensor cast (+ amax, + fake); with no output, the amax pass alone
// ---------------------------------------------------------------------------

struct CastArgs {
  const void* in = nullptr;
  void* out = nullptr;  // null: amax only
  void* fake = nullptr;
  std::int64_t rows = 0;  // 1 for a flat tensor
  std::int64_t cols = 0;
  std::int64_t in_stride = 0;
  std::int64_t out_stride = 0;
  std::int64_t fake_stride = 0;
  k::Fp8Mode mode;
  TensorScale scale;
  TensorScaleSink sink;
  std::uint32_t* amax = nullptr;  // null: no amax in this pass
};

template <class T, int VEC>
__device__ __forceinline__ void cast_vector(const CastArgs& a, const Pack<typename T::Storage, VEC>& v, std::int64_t r,
                                            std::int64_t c, dm::ScalePair sp, std::uint32_t& acc) {
  using S = typename T::Storage;
  float f[VEC];
#pragma unroll
  for (int j = 0; j < VEC; ++j) {
    f[j] = T::widen(v.e[j]);
    acc = dm::max_u32(acc, k::abs_key(f[j]));
  }
  if (a.out == nullptr) return;
  std::uint8_t q[VEC];
  k::encode_scaled<VEC>(f, sp.scale, a.mode, q);
  store_codes<VEC>(static_cast<std::uint8_t*>(a.out) + r * a.out_stride + c, q);
  if (a.fake != nullptr) {
    Pack<S, VEC> o;
#pragma unroll
    for (int j = 0; j < VEC; ++j) o.e[j] = k::fake_of<T>(q[j], sp.scale_inv, a.mode.format);
    k::store_pack<S, VEC>(static_cast<S*>(a.fake) + r * a.fake_stride + c, o);
  }
}

template <class T, int VEC>
__global__ void __launch_bounds__(kThreads, 3) cast_kernel(CastArgs a) {
  using S = typename T::Storage;
  constexpr int U = 4;
  const dm::ScalePair sp = resolve(a.scale);
  if (blockIdx.x == 0 && threadIdx.x == 0) write_sink(a.sink, sp);
  const S* in = static_cast<const S*>(a.in);
  const std::int64_t nv = a.cols / VEC;
  const std::int64_t total = a.rows * nv;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  std::uint32_t acc = 0;
  for (std::int64_t base = first; base < total; base += stride * U) {
    Pack<S, VEC> v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::int64_t i = base + u * stride;
      if (i < total) {
        const std::int64_t r = a.rows == 1 ? 0 : i / nv;
        v[u] = k::load_pack<S, VEC>(in + r * a.in_stride + (i - r * nv) * VEC);
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::int64_t i = base + u * stride;
      if (i < total) {
        const std::int64_t r = a.rows == 1 ? 0 : i / nv;
        cast_vector<T, VEC>(a, v[u], r, (i - r * nv) * VEC, sp, acc);
      }
    }
  }
  // Row tails shorter than a vector (flat tensors whose size is not a
  // multiple of VEC).
  const std::int64_t tail = a.cols - nv * VEC;
  if (tail > 0) {
    for (std::int64_t i = first; i < a.rows * tail; i += stride) {
      const std::int64_t r = i / tail;
      const std::int64_t c = nv * VEC + (i - r * tail);
      Pack<S, 1> one;
      one.e[0] = in[r * a.in_stride + c];
      cast_vector<T, 1>(a, one, r, c, sp, acc);
    }
  }
  if (a.amax != nullptr) k::block_max_to(acc, a.amax);
}

// ---------------------------------------------------------------------------
// Per-tensor cast + transpose (+ amax, + fake)
// ---------------------------------------------------------------------------
//
// 64 x 64 tiles. Each thread loads its 16-byte vectors of the tile (all of
// them before any use), writes its codes to `out` directly and, transposed,
// into a shared tile; then each thread writes 16 consecutive codes of one
// row of `out_t` (one column of the input).

inline constexpr int kTile = 64;
inline constexpr int kPitch = kTile + 4;  // shared tile row, in bytes: spreads the byte stores over banks

struct TransposeArgs {
  const void* in = nullptr;
  void* out = nullptr;
  void* out_t = nullptr;
  void* fake = nullptr;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t in_stride = 0;
  std::int64_t out_stride = 0;
  std::int64_t out_t_stride = 0;
  std::int64_t fake_stride = 0;
  k::Fp8Mode mode;
  TensorScale scale;
  TensorScaleSink sink;
  std::uint32_t* amax = nullptr;
  int vec_ok = 0;    // in, out and fake allow 16-byte / VEC-byte accesses
  int vec_ok_t = 0;  // out_t allows 16-byte stores
};

template <class T>
__global__ void __launch_bounds__(kThreads, 4) cast_transpose_kernel(TransposeArgs a) {
  using S = typename T::Storage;
  constexpr int VEC = k::kVec16<T>;
  constexpr int TPR = kTile / VEC;     // threads per tile row
  constexpr int RPP = kThreads / TPR;  // tile rows per pass
  constexpr int PASSES = kTile / RPP;
  static_assert(PASSES * RPP == kTile && TPR * VEC == kTile, "tile shape");
  __shared__ alignas(16) std::uint8_t tile_t[kTile * kPitch];  // [column][row] of the tile's codes

  const dm::ScalePair sp = resolve(a.scale);
  if (blockIdx.x == 0 && threadIdx.x == 0) write_sink(a.sink, sp);
  const S* in = static_cast<const S*>(a.in);
  std::uint8_t* out = static_cast<std::uint8_t*>(a.out);
  std::uint8_t* out_t = static_cast<std::uint8_t*>(a.out_t);
  S* fake = static_cast<S*>(a.fake);
  const int tx = static_cast<int>(threadIdx.x) % TPR;
  const int ty = static_cast<int>(threadIdx.x) / TPR;
  const std::int64_t tiles_c = (a.cols + kTile - 1) / kTile;
  const std::int64_t tiles = ((a.rows + kTile - 1) / kTile) * tiles_c;
  std::uint32_t acc = 0;

  for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const std::int64_t r0 = (tile / tiles_c) * kTile;
    const std::int64_t c0 = (tile % tiles_c) * kTile;
    const bool full = r0 + kTile <= a.rows && c0 + kTile <= a.cols;
    if (full && a.vec_ok != 0) {
      Pack<S, VEC> v[PASSES];
#pragma unroll
      for (int p = 0; p < PASSES; ++p) {
        const std::int64_t r = r0 + p * RPP + ty;
        v[p] = k::load_pack<S, VEC>(in + r * a.in_stride + c0 + tx * VEC);
      }
#pragma unroll
      for (int p = 0; p < PASSES; ++p) {
        const int lr = p * RPP + ty;
        const std::int64_t r = r0 + lr;
        float f[VEC];
#pragma unroll
        for (int j = 0; j < VEC; ++j) {
          f[j] = T::widen(v[p].e[j]);
          acc = dm::max_u32(acc, k::abs_key(f[j]));
        }
        std::uint8_t q[VEC];
        k::encode_scaled<VEC>(f, sp.scale, a.mode, q);
        store_codes<VEC>(out + r * a.out_stride + c0 + tx * VEC, q);
#pragma unroll
        for (int j = 0; j < VEC; ++j) tile_t[(tx * VEC + j) * kPitch + lr] = q[j];
        if (fake != nullptr) {
          Pack<S, VEC> o;
#pragma unroll
          for (int j = 0; j < VEC; ++j) o.e[j] = k::fake_of<T>(q[j], sp.scale_inv, a.mode.format);
          k::store_pack<S, VEC>(fake + r * a.fake_stride + c0 + tx * VEC, o);
        }
      }
    } else {
      // Edge tiles and unaligned views: element by element.
      for (int p = 0; p < PASSES; ++p) {
        const int lr = p * RPP + ty;
        const std::int64_t r = r0 + lr;
        if (r >= a.rows) continue;
        for (int j = 0; j < VEC; ++j) {
          const std::int64_t c = c0 + tx * VEC + j;
          if (c >= a.cols) break;
          const float x = T::widen(in[r * a.in_stride + c]);
          acc = dm::max_u32(acc, k::abs_key(x));
          const std::uint8_t q = k::encode1(x * sp.scale, a.mode);
          out[r * a.out_stride + c] = q;
          tile_t[(tx * VEC + j) * kPitch + lr] = q;
          if (fake != nullptr) fake[r * a.fake_stride + c] = k::fake_of<T>(q, sp.scale_inv, a.mode.format);
        }
      }
    }
    __syncthreads();
    {
      const int oc = static_cast<int>(threadIdx.x) / 4;          // tile column = out_t row
      const int seg = (static_cast<int>(threadIdx.x) % 4) * 16;  // first tile row of this thread's 16
      const std::int64_t tr = c0 + oc;
      if (full && a.vec_ok_t != 0) {
        const std::uint32_t* src = reinterpret_cast<const std::uint32_t*>(tile_t + oc * kPitch + seg);
        uint4 w;
        w.x = src[0];
        w.y = src[1];
        w.z = src[2];
        w.w = src[3];
        *reinterpret_cast<uint4*>(out_t + tr * a.out_t_stride + r0 + seg) = w;
      } else if (tr < a.cols) {
        for (int j = 0; j < 16; ++j) {
          const std::int64_t r = r0 + seg + j;
          if (r >= a.rows) break;
          out_t[tr * a.out_t_stride + r] = tile_t[oc * kPitch + seg + j];
        }
      }
    }
    __syncthreads();
  }
  if (a.amax != nullptr) k::block_max_to(acc, a.amax);
}

// ---------------------------------------------------------------------------
// Block recipes
// ---------------------------------------------------------------------------

struct BlockArgs {
  const void* in = nullptr;
  void* out = nullptr;
  void* fake = nullptr;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t in_stride = 0;
  std::int64_t out_stride = 0;
  std::int64_t fake_stride = 0;
  std::int64_t block_rows = 1;
  std::int64_t block_cols = 1;
  std::int64_t grid_cols = 1;
  std::int64_t chunk = 1;  // k::ChunkShape::chunk
  k::Fp8Mode mode;
  int mx = 0;  // E8M0 scales (mx_scale_code) instead of current_scale
  float fp8_max = 448.0f;
  std::uint32_t* block_amax = nullptr;  // generic: per-block amax keys, zeroed before pass 1
  void* scale_inv = nullptr;            // fp32, or E8M0 bytes for mx
  float* scale = nullptr;               // fp32 or null (always null for mx)
  std::uint32_t* amax = nullptr;        // whole tensor, or null
  unsigned group = 1;                   // fused: lanes per block (block_cols / VEC)
};

// The scales of one block from its amax key.
struct BlockScale {
  dm::ScalePair pair;
  std::uint8_t code = 0;
};

__device__ __forceinline__ BlockScale block_scale(const BlockArgs& a, std::uint32_t key) {
  BlockScale b;
  const float amax = dm::u2f(key);
  if (a.mx != 0) {
    b.code = dm::mx_scale_code(amax, a.fp8_max);
    b.pair = dm::mx_scale_pair(b.code);
  } else {
    b.pair = dm::current_scale(amax, a.fp8_max);
  }
  return b;
}

__device__ __forceinline__ void write_block_scale(const BlockArgs& a, std::int64_t index, const BlockScale& b) {
  if (a.mx != 0) {
    static_cast<std::uint8_t*>(a.scale_inv)[index] = b.code;
  } else {
    static_cast<float*>(a.scale_inv)[index] = b.pair.scale_inv;
    if (a.scale != nullptr) a.scale[index] = b.pair.scale;
  }
}

// Pass 1 of the generic path: per-block amax keys into a.block_amax, the
// whole tensor's into a.amax.
template <class T, int VEC>
__global__ void __launch_bounds__(kThreads) block_amax_kernel(BlockArgs a) {
  using S = typename T::Storage;
  const S* in = static_cast<const S*>(a.in);
  const std::int64_t nv = a.cols / VEC;
  const std::int64_t cv = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool active = cv < nv;
  const std::int64_t thread_row = static_cast<std::int64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  const std::int64_t r_begin = thread_row * a.chunk;
  const std::int64_t r_end = r_begin + a.chunk < a.rows ? r_begin + a.chunk : a.rows;
  const std::uint32_t key = active ? static_cast<std::uint32_t>((cv * VEC) / a.block_cols) : 0xFFFF'FFFFu;
  const bool head = k::run_head(key);
  std::uint32_t acc = 0;
  std::uint32_t total = 0;
  // Warp-uniform: every lane of a warp has the same thread row.
  for (std::int64_t r = r_begin; r < r_end; ++r) {
    if (active) {
      const Pack<S, VEC> v = k::load_pack<S, VEC>(in + r * a.in_stride + cv * VEC);
#pragma unroll
      for (int j = 0; j < VEC; ++j) acc = dm::max_u32(acc, k::abs_key(T::widen(v.e[j])));
    }
    const std::int64_t gr = r / a.block_rows;
    if (r + 1 == r_end || (r + 1) / a.block_rows != gr) {
      const std::uint32_t run = k::run_max_to_head(acc, key);
      if (active && head && run != 0) atomicMax(a.block_amax + gr * a.grid_cols + key, run);
      total = dm::max_u32(total, acc);
      acc = 0;
    }
  }
  k::block_max_to(total, a.amax);
}

// The cast pass of the block recipes. kFused: blocks are 1 x (group * VEC)
// and the warp reduces their amaxes itself (and the whole tensor's);
// otherwise it reads pass 1's per-block keys.
template <class T, int VEC, bool kFused>
__global__ void __launch_bounds__(kThreads) block_cast_kernel(BlockArgs a) {
  using S = typename T::Storage;
  const S* in = static_cast<const S*>(a.in);
  std::uint8_t* out = static_cast<std::uint8_t*>(a.out);
  S* fake = static_cast<S*>(a.fake);
  const std::int64_t nv = a.cols / VEC;
  const std::int64_t cv = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool active = cv < nv;
  const std::int64_t thread_row = static_cast<std::int64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  const std::int64_t r_begin = thread_row * a.chunk;
  const std::int64_t r_end = r_begin + a.chunk < a.rows ? r_begin + a.chunk : a.rows;
  const std::int64_t gc = (cv * VEC) / a.block_cols;
  const bool first_col = active && (cv * VEC) % a.block_cols == 0;  // this vector starts its block
  std::int64_t cached_gr = -1;
  BlockScale bs;
  std::uint32_t total = 0;
  for (std::int64_t r = r_begin; r < r_end; ++r) {
    Pack<S, VEC> v;
    float f[VEC];
    std::uint32_t local = 0;
    if (active) {
      v = k::load_pack<S, VEC>(in + r * a.in_stride + cv * VEC);
#pragma unroll
      for (int j = 0; j < VEC; ++j) {
        f[j] = T::widen(v.e[j]);
        local = dm::max_u32(local, k::abs_key(f[j]));
      }
    }
    const std::int64_t gr = r / a.block_rows;
    if constexpr (kFused) {
      const std::uint32_t key = k::group_max(local, a.group);  // every lane takes part
      total = dm::max_u32(total, local);
      if (active) bs = block_scale(a, key);
    } else {
      if (active && gr != cached_gr) {
        bs = block_scale(a, a.block_amax[gr * a.grid_cols + gc]);
        cached_gr = gr;
      }
    }
    if (active) {
      std::uint8_t q[VEC];
      k::encode_scaled<VEC>(f, bs.pair.scale, a.mode, q);
      store_codes<VEC>(out + r * a.out_stride + cv * VEC, q);
      if (fake != nullptr) {
        Pack<S, VEC> o;
#pragma unroll
        for (int j = 0; j < VEC; ++j) o.e[j] = k::fake_of<T>(q[j], bs.pair.scale_inv, a.mode.format);
        k::store_pack<S, VEC>(fake + r * a.fake_stride + cv * VEC, o);
      }
      if (first_col && r % a.block_rows == 0) write_block_scale(a, gr * a.grid_cols + gc, bs);
    }
  }
  if constexpr (kFused) k::block_max_to(total, a.amax);
}

// ---------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------

template <class F>
void visit_input(std::int32_t dtype, F&& f) {
  switch (dtype) {
    case FRUGAL_DTYPE_FLOAT32: f(k::F32{}); return;
    case FRUGAL_DTYPE_FLOAT16: f(k::F16{}); return;
    case FRUGAL_DTYPE_BFLOAT16: f(k::BF16{}); return;
    default:
      throw UnsupportedDevice(std::string("quant_fp8 CUDA: input dtype ") + detail::dtype_name(dtype) +
                              " (fp32, fp16 or bf16 only)");
  }
}

// A persistent grid: as many blocks as the device holds at once (so the
// grid-stride loops end together, with no partial last wave), fewer when
// the work is small.
template <class Kernel>
unsigned resident_blocks(Kernel kernel, std::int64_t work_items, int sms) {
  int per_sm = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  const std::int64_t cap = static_cast<std::int64_t>(sms) * (per_sm > 0 ? per_sm : 1);
  const std::int64_t n = work_items < cap ? work_items : cap;
  return static_cast<unsigned>(n < 1 ? 1 : n);
}

// Launches cast_kernel: 16-byte accesses when `vec`, element-wise otherwise.
template <class T>
void launch_cast(const CastArgs& ca, bool vec, int sms, cudaStream_t stream) {
  constexpr int VEC = k::kVec16<T>;
  if (vec) {
    const std::int64_t blocks = (ca.rows * (ca.cols / VEC) + kThreads - 1) / kThreads;
    cast_kernel<T, VEC><<<resident_blocks(cast_kernel<T, VEC>, blocks, sms), kThreads, 0, stream>>>(ca);
  } else {
    const std::int64_t blocks = (ca.rows * ca.cols + kThreads - 1) / kThreads;
    cast_kernel<T, 1><<<resident_blocks(cast_kernel<T, 1>, blocks, sms), kThreads, 0, stream>>>(ca);
  }
  check_launch(ca.out != nullptr ? "quant_fp8 cast kernel" : "quant_fp8 amax kernel");
}

// The amax pass alone: the NaN-propagating amax of m into *amax (zeroed by the caller).
template <class T>
void launch_amax(const ops::Matrix& m, std::uint32_t* amax, int sms, cudaStream_t stream) {
  CastArgs ca;
  const bool flat = m.contiguous();
  ca.in = m.data();
  ca.rows = flat ? 1 : m.rows();
  ca.cols = flat ? m.rows() * m.cols() : m.cols();
  ca.in_stride = m.row_stride();
  ca.amax = amax;
  launch_cast<T>(ca, aligned(m.data(), 16) && (flat || m.row_stride() % k::kVec16<T> == 0), sms, stream);
}

template <class T>
void quantize_per_tensor(const ops::QuantizeOp& op, const k::Fp8Mode& mode, float fp8_max, std::uint32_t* amax, int sms,
                         cudaStream_t stream) {
  using S = typename T::Storage;
  constexpr int VEC = k::kVec16<T>;
  const ops::Matrix& in = op.input;
  const ops::Matrix* fake = op.fake;

  TensorScale ts;
  ts.fp8_max = fp8_max;
  std::uint32_t* pass_amax = amax;
  if (op.recipe == ops::Recipe::delayed) {
    ts.scale = op.fixed_scale;
    ts.scale_inv = op.fixed_scale_inv;
  } else {
    // current: an amax pass first; the cast pass computes the scale from it.
    launch_amax<T>(in, amax, sms, stream);
    ts.from_amax = 1;
    ts.amax = amax;
    pass_amax = nullptr;
  }
  TensorScaleSink sink;
  sink.scale_inv[0] = static_cast<float*>(op.scales.scale_inv);
  sink.scale[0] = op.scales.scale;
  sink.scale_inv[1] = static_cast<float*>(op.scales_t.scale_inv);
  sink.scale[1] = op.scales_t.scale;

  if (op.output_t != nullptr) {
    const ops::Matrix& ot = *op.output_t;
    TransposeArgs ta;
    ta.in = in.data();
    ta.out = op.output.data();
    ta.out_t = ot.data();
    ta.fake = fake != nullptr ? fake->data() : nullptr;
    ta.rows = in.rows();
    ta.cols = in.cols();
    ta.in_stride = in.row_stride();
    ta.out_stride = op.output.row_stride();
    ta.out_t_stride = ot.row_stride();
    ta.fake_stride = fake != nullptr ? fake->row_stride() : 0;
    ta.mode = mode;
    ta.scale = ts;
    ta.sink = sink;
    ta.amax = pass_amax;
    ta.vec_ok = aligned(in.data(), 16) && in.row_stride() % VEC == 0 && aligned(op.output.data(), VEC) &&
                op.output.row_stride() % VEC == 0 &&
                (fake == nullptr || (aligned(fake->data(), 16) && fake->row_stride() % VEC == 0));
    ta.vec_ok_t = aligned(ot.data(), 16) && ot.row_stride() % 16 == 0;
    const std::int64_t tiles = ((in.rows() + kTile - 1) / kTile) * ((in.cols() + kTile - 1) / kTile);
    cast_transpose_kernel<T><<<resident_blocks(cast_transpose_kernel<T>, tiles, sms), kThreads, 0, stream>>>(ta);
    check_launch("quant_fp8 cast+transpose kernel");
    return;
  }

  CastArgs ca;
  // The rows collapse into one when every matrix is contiguous.
  const bool flat = in.contiguous() && op.output.contiguous() && (fake == nullptr || fake->contiguous());
  ca.in = in.data();
  ca.out = op.output.data();
  ca.fake = fake != nullptr ? fake->data() : nullptr;
  ca.rows = flat ? 1 : in.rows();
  ca.cols = flat ? in.rows() * in.cols() : in.cols();
  ca.in_stride = in.row_stride();
  ca.out_stride = op.output.row_stride();
  ca.fake_stride = fake != nullptr ? fake->row_stride() : 0;
  ca.mode = mode;
  ca.scale = ts;
  ca.sink = sink;
  ca.amax = pass_amax;
  const bool vec = aligned(in.data(), 16) && aligned(op.output.data(), VEC) &&
                   (fake == nullptr || aligned(fake->data(), sizeof(S) * VEC)) &&
                   (flat || (in.row_stride() % VEC == 0 && op.output.row_stride() % VEC == 0 &&
                             (fake == nullptr || fake->row_stride() % VEC == 0)));
  launch_cast<T>(ca, vec, sms, stream);
}

template <class T, int VEC>
void launch_blocks(BlockArgs& ba, bool fused, int sms, cudaStream_t stream) {
  const k::ChunkShape shape = k::chunk_shape(ba.rows, ba.cols / VEC, ba.block_rows, sms);
  ba.chunk = shape.chunk;
  if (fused) {
    ba.group = static_cast<unsigned>(ba.block_cols / VEC);
    block_cast_kernel<T, VEC, true><<<shape.grid, shape.block, 0, stream>>>(ba);
    check_launch("quant_fp8 block cast kernel (fused)");
    return;
  }
  const std::int64_t grid_rows = (ba.rows + ba.block_rows - 1) / ba.block_rows;
  detail::StreamScratch keys(static_cast<std::size_t>(grid_rows * ba.grid_cols) * sizeof(std::uint32_t), stream);
  ba.block_amax = static_cast<std::uint32_t*>(keys.get());
  check(cudaMemsetAsync(ba.block_amax, 0, static_cast<std::size_t>(grid_rows * ba.grid_cols) * sizeof(std::uint32_t),
                        stream),
        "cudaMemsetAsync");
  block_amax_kernel<T, VEC><<<shape.grid, shape.block, 0, stream>>>(ba);
  check_launch("quant_fp8 block amax kernel");
  block_cast_kernel<T, VEC, false><<<shape.grid, shape.block, 0, stream>>>(ba);
  check_launch("quant_fp8 block cast kernel");
}

template <class T>
void quantize_blocks(const ops::QuantizeOp& op, const k::Fp8Mode& mode, float fp8_max, std::uint32_t* amax, int sms,
                     cudaStream_t stream) {
  using S = typename T::Storage;
  constexpr int VEC = k::kVec16<T>;
  const ops::Matrix& in = op.input;
  const ops::Matrix* fake = op.fake;
  if (in.rows() == 0 || in.cols() == 0) return;
  BlockArgs ba;
  ba.in = in.data();
  ba.out = op.output.data();
  ba.fake = fake != nullptr ? fake->data() : nullptr;
  ba.rows = in.rows();
  ba.cols = in.cols();
  ba.in_stride = in.row_stride();
  ba.out_stride = op.output.row_stride();
  ba.fake_stride = fake != nullptr ? fake->row_stride() : 0;
  ba.block_rows = op.block_rows < 1 ? 1 : op.block_rows;
  ba.block_cols = op.block_cols < 1 ? 1 : op.block_cols;
  ba.grid_cols = (in.cols() + ba.block_cols - 1) / ba.block_cols;
  if (ba.grid_cols >= 0xFFFF'FFFFll) {
    throw UnsupportedDevice("quant_fp8 CUDA: more than 2^32 - 1 scale blocks along a row");
  }
  ba.mode = mode;
  ba.mx = op.recipe == ops::Recipe::mx ? 1 : 0;
  ba.fp8_max = fp8_max;
  ba.scale_inv = op.scales.scale_inv;
  ba.scale = ba.mx != 0 ? nullptr : op.scales.scale;
  ba.amax = amax;
  const bool vec = aligned(in.data(), 16) && in.row_stride() % VEC == 0 && aligned(op.output.data(), VEC) &&
                   op.output.row_stride() % VEC == 0 &&
                   (fake == nullptr || (aligned(fake->data(), sizeof(S) * VEC) && fake->row_stride() % VEC == 0)) &&
                   in.cols() % VEC == 0 && ba.block_cols % VEC == 0;
  if (vec) {
    const bool fused = ba.block_rows == 1 && (32 * VEC) % ba.block_cols == 0;
    launch_blocks<T, VEC>(ba, fused, sms, stream);
  } else {
    const bool fused = ba.block_rows == 1 && 32 % ba.block_cols == 0;
    launch_blocks<T, 1>(ba, fused, sms, stream);
  }
}

std::int32_t code_dtype(ops::ElementFormat f) {
  return f == ops::ElementFormat::e4m3 ? FRUGAL_DTYPE_FLOAT8_E4M3FN : FRUGAL_DTYPE_FLOAT8_E5M2;
}

}  // namespace

namespace detail {

void launch_matrix_amax(const ops::Matrix& m, float* out, cudaStream_t stream) {
  auto* key = reinterpret_cast<std::uint32_t*>(out);
  check(cudaMemsetAsync(out, 0, sizeof(float), stream), "cudaMemsetAsync");
  if (m.rows() == 0 || m.cols() == 0) return;
  const int sms = multiprocessors();
  visit_input(m.dtype, [&](auto tag) { launch_amax<decltype(tag)>(m, key, sms, stream); });
}

}  // namespace detail

void quantize_cuda(const ops::QuantizeOp& op, float* host_amax) {
  if (op.format == ops::ElementFormat::int8 || op.format == ops::ElementFormat::int8_asym) {
    throw UnsupportedDevice("int8 on CUDA: INT8 quantization runs on the CPU only in this release");
  }
  if (op.output.dtype != code_dtype(op.format)) {
    throw std::invalid_argument(std::string("quant_fp8 CUDA: output dtype ") + detail::dtype_name(op.output.dtype) +
                                " does not match the format");
  }
  const bool per_tensor =
      op.recipe == ops::Recipe::delayed ||
      (op.recipe == ops::Recipe::current && op.block_rows >= op.input.rows() && op.block_cols >= op.input.cols());
  if (op.output_t != nullptr && !per_tensor) {
    throw std::invalid_argument("quant_fp8 CUDA: output_t is for per-tensor recipes only");
  }
  if (op.scales.scale_inv == nullptr) throw std::invalid_argument("quant_fp8 CUDA: scale_inv is required");

  const detail::DeviceGuard guard(detail::device_of(op.input.data(), "input"));
  auto* stream = static_cast<cudaStream_t>(op.stream);
  const int sms = detail::multiprocessors();
  k::Fp8Mode mode;
  mode.format = op.format == ops::ElementFormat::e4m3 ? 0 : 1;
  mode.interp = mode.format == 0 ? __NV_E4M3 : __NV_E5M2;
  mode.sat = op.saturate ? __NV_SATFINITE : __NV_NOSAT;
  const float fp8_max = mode.format == 0 ? 448.0f : 57344.0f;

  // The whole tensor's amax: in the output's amax tensor when there is one,
  // else in scratch when someone needs it (host_amax, output_t's amax, or
  // the current recipe's scale).
  const bool need_amax = op.scales.amax != nullptr || op.scales_t.amax != nullptr || host_amax != nullptr ||
                         (per_tensor && op.recipe == ops::Recipe::current);
  detail::StreamScratch scratch(need_amax && op.scales.amax == nullptr ? sizeof(float) : 0, stream);
  float* amax = op.scales.amax != nullptr ? op.scales.amax : static_cast<float*>(scratch.get());
  std::uint32_t* amax_key = need_amax ? reinterpret_cast<std::uint32_t*>(amax) : nullptr;
  if (amax_key != nullptr) check(cudaMemsetAsync(amax, 0, sizeof(float), stream), "cudaMemsetAsync");

  visit_input(op.input.dtype, [&](auto tag) {
    using T = decltype(tag);
    if (per_tensor) {
      quantize_per_tensor<T>(op, mode, fp8_max, amax_key, sms, stream);
    } else {
      quantize_blocks<T>(op, mode, fp8_max, amax_key, sms, stream);
    }
  });

  if (op.scales_t.amax != nullptr && op.scales_t.amax != amax) {
    check(cudaMemcpyAsync(op.scales_t.amax, amax, sizeof(float), cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync");
  }
  if (host_amax != nullptr) {
    check(cudaMemcpyAsync(host_amax, amax, sizeof(float), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  }
}

}  // namespace frugal::quant::cuda
