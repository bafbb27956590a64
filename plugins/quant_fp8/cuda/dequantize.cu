// dequantize_cuda: output = fp8_to_fp32(q) * scale_inv(block), narrowed to
// the output dtype with the CPU reference's rounding and NaN bits
// (quant_op.hpp). One pass over row chunks; each thread reloads its block's
// scale only when it moves into another block row.
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
using k::kThreads;
using k::Pack;

template <int N>
__device__ __forceinline__ void load_codes(const std::uint8_t* p, std::uint8_t* q) {
  if constexpr (N == 1) {
    q[0] = p[0];
  } else if constexpr (N == 4) {
    const std::uint32_t w = *reinterpret_cast<const std::uint32_t*>(p);
#pragma unroll
    for (int j = 0; j < 4; ++j) q[j] = static_cast<std::uint8_t>(w >> (8 * j));
  } else {
    static_assert(N == 8, "code vectors are 1, 4 or 8 bytes");
    const uint2 w = *reinterpret_cast<const uint2*>(p);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      q[j] = static_cast<std::uint8_t>(w.x >> (8 * j));
      q[j + 4] = static_cast<std::uint8_t>(w.y >> (8 * j));
    }
  }
}

struct DequantArgs {
  const void* in = nullptr;
  void* out = nullptr;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t in_stride = 0;
  std::int64_t out_stride = 0;
  std::int64_t block_rows = 1;
  std::int64_t block_cols = 1;
  std::int64_t grid_cols = 1;
  std::int64_t chunk = 1;
  const void* scale_inv = nullptr;  // fp32, or E8M0 bytes for mx
  int mx = 0;
  int format = 0;  // 0 = E4M3FN, 1 = E5M2
};

template <class T, int VEC>
__global__ void __launch_bounds__(kThreads) dequantize_kernel(DequantArgs a) {
  using S = typename T::Storage;
  const std::int64_t nv = a.cols / VEC;
  const std::int64_t cv = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (cv >= nv) return;  // no collectives in this kernel
  const std::int64_t thread_row = static_cast<std::int64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  const std::int64_t r_begin = thread_row * a.chunk;
  const std::int64_t r_end = r_begin + a.chunk < a.rows ? r_begin + a.chunk : a.rows;
  const std::uint8_t* in = static_cast<const std::uint8_t*>(a.in);
  S* out = static_cast<S*>(a.out);
  const std::int64_t gc = (cv * VEC) / a.block_cols;
  std::int64_t cached_gr = -1;
  float scale_inv = 1.0f;
  for (std::int64_t r = r_begin; r < r_end; ++r) {
    const std::int64_t gr = r / a.block_rows;
    if (gr != cached_gr) {
      const std::int64_t index = gr * a.grid_cols + gc;
      scale_inv = a.mx != 0 ? dm::e8m0_decode(static_cast<const std::uint8_t*>(a.scale_inv)[index])
                            : static_cast<const float*>(a.scale_inv)[index];
      cached_gr = gr;
    }
    std::uint8_t q[VEC];
    load_codes<VEC>(in + r * a.in_stride + cv * VEC, q);
    Pack<S, VEC> o;
#pragma unroll
    for (int j = 0; j < VEC; ++j) o.e[j] = T::narrow(dm::mul_as_host(dm::fp8_to_fp32(q[j], a.format), scale_inv));
    k::store_pack<S, VEC>(out + r * a.out_stride + cv * VEC, o);
  }
}

template <class T>
void launch(DequantArgs a, int sms, cudaStream_t stream) {
  constexpr int VEC = k::kVec16<T>;
  const bool vec = aligned(a.in, VEC) && a.in_stride % VEC == 0 && aligned(a.out, 16) && a.out_stride % VEC == 0 &&
                   a.cols % VEC == 0 && a.block_cols % VEC == 0;
  if (vec) {
    const k::ChunkShape shape = k::chunk_shape(a.rows, a.cols / VEC, a.block_rows, sms);
    a.chunk = shape.chunk;
    dequantize_kernel<T, VEC><<<shape.grid, shape.block, 0, stream>>>(a);
  } else {
    const k::ChunkShape shape = k::chunk_shape(a.rows, a.cols, a.block_rows, sms);
    a.chunk = shape.chunk;
    dequantize_kernel<T, 1><<<shape.grid, shape.block, 0, stream>>>(a);
  }
  detail::check_launch("quant_fp8 dequantize kernel");
}

}  // namespace

void dequantize_cuda(const ops::DequantizeOp& op) {
  if (op.format == ops::ElementFormat::int8 || op.format == ops::ElementFormat::int8_asym) {
    throw UnsupportedDevice("int8 on CUDA: INT8 dequantization runs on the CPU only in this release");
  }
  const std::int32_t code =
      op.format == ops::ElementFormat::e4m3 ? FRUGAL_DTYPE_FLOAT8_E4M3FN : FRUGAL_DTYPE_FLOAT8_E5M2;
  if (op.input.dtype != code) {
    throw std::invalid_argument(std::string("quant_fp8 CUDA: input dtype ") + detail::dtype_name(op.input.dtype) +
                                " does not match the format");
  }
  if (op.scale_inv == nullptr) throw std::invalid_argument("quant_fp8 CUDA: scale_inv is required");
  if (op.input.rows() == 0 || op.input.cols() == 0) return;
  const detail::DeviceGuard guard(detail::device_of(op.input.data(), "input"));
  auto* stream = static_cast<cudaStream_t>(op.stream);
  const int sms = detail::multiprocessors();

  DequantArgs a;
  a.in = op.input.data();
  a.out = op.output.data();
  a.rows = op.input.rows();
  a.cols = op.input.cols();
  a.in_stride = op.input.row_stride();
  a.out_stride = op.output.row_stride();
  a.block_rows = op.block_rows < 1 ? 1 : op.block_rows;
  a.block_cols = op.block_cols < 1 ? 1 : op.block_cols;
  a.scale_inv = op.scale_inv;
  a.mx = op.recipe == ops::Recipe::mx ? 1 : 0;
  a.format = op.format == ops::ElementFormat::e4m3 ? 0 : 1;
  // One scale for everything and both matrices contiguous: one long row.
  const bool one_block = a.block_rows >= a.rows && a.block_cols >= a.cols;
  const bool contiguous = a.rows == 1 || (a.in_stride == a.cols && a.out_stride == a.cols);
  if (one_block && contiguous) {
    a.cols *= a.rows;
    a.rows = 1;
    a.in_stride = a.out_stride = a.cols;
    a.block_rows = 1;
    a.block_cols = a.cols;
  }
  a.grid_cols = (a.cols + a.block_cols - 1) / a.block_cols;

  switch (op.output.dtype) {
    case FRUGAL_DTYPE_FLOAT32: launch<k::F32>(a, sms, stream); break;
    case FRUGAL_DTYPE_FLOAT16: launch<k::F16>(a, sms, stream); break;
    case FRUGAL_DTYPE_BFLOAT16: launch<k::BF16>(a, sms, stream); break;
    default:
      throw UnsupportedDevice(std::string("quant_fp8 CUDA: dequantize to ") + detail::dtype_name(op.output.dtype) +
                              " (fp32, fp16 or bf16 only)");
  }
}

}  // namespace frugal::quant::cuda
