// quant_gpu_bench: quant_fp8's CUDA kernels and FP8 GEMM on one GPU, each
// next to its own baseline measured in the same run.
//
//   copy        cudaMemcpy device to device of the fp32 input buffer; GB/s
//               counts bytes read + written (the ceiling for the casts);
//   cast+amax   delayed scaling (fixed scale) of fp32 and bf16 input to
//               E4M3 with the whole-tensor amax, and the same with the
//               transposed copy (cast+transpose+amax); GB/s counts bytes
//               read + written, shown as a share of the copy;
//   other       current scaling (two passes), 1x128 blocks and MX, for
//               reference;
//   gemm        E4M3 x E4M3 -> bf16 through quant_fp8's cuBLASLt path (fp32
//               accumulation, and fast accumulation) against a bf16 x bf16
//               -> bf16 cuBLASLt GEMM of the same shape (TN, fp32 compute);
//               TFLOP/s = 2 m n k / time.
// Timing: CUDA events around each call after 3 warm-up calls; the median of
// 20 (GEMM: 10). Usage: quant_gpu_bench [--rows R --cols C] [--m M --n N
// --k K] (defaults 16384 x 8192 for the casts: 512 MiB of fp32, so the per-call launches
// (the amax reset and the kernel) weigh little next to the traffic; and
// 8192^3 for the GEMMs). Runs in a few seconds on an H200.
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "command_spec.hpp"
#include "cuda/cublaslt_api.hpp"
#include "cuda/cuda_ops.hpp"
#include "cuda_support/cuda_support.hpp"
#include "frugal/tensor.h"
#include "program_main.hpp"

namespace {

namespace ops = frugal::quant::ops;
namespace qc = frugal::quant::cuda;

// Failures worded as the plugin words them: CUDA errors by plugins/cuda_support,
// cuBLASLt statuses by quant_fp8's cuBLASLt table (name and description).
void ok(cudaError_t s, const char* what) { frugal::plugin_cuda::check(s, what); }
void ok(cublasStatus_t s, const char* what) { qc::detail::lt_check(qc::detail::lt_api(), s, what); }

struct Buffer {
  void* p = nullptr;
  explicit Buffer(std::size_t bytes) { ok(cudaMalloc(&p, bytes), "cudaMalloc"); }
  ~Buffer() { cudaFree(p); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

// Deterministic pseudo-normal values (and fp8 codes of them) on the device.
__device__ std::uint32_t hash(std::uint64_t i) {
  i ^= i >> 33;
  i *= 0xff51afd7ed558ccdull;
  i ^= i >> 33;
  i *= 0xc4ceb9fe1a85ec53ull;
  i ^= i >> 33;
  return static_cast<std::uint32_t>(i);
}
__device__ float sample(std::uint64_t i) {
  const std::uint32_t h = hash(i);
  const float s = static_cast<float>(h & 0xFFFFu) + static_cast<float>(h >> 16);
  return (s * (1.0f / 65536.0f) - 1.0f) * 2.449f;  // two uniforms: mean 0, variance 1
}
__global__ void fill_f32(float* p, std::int64_t n, float scale) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    p[i] = sample(static_cast<std::uint64_t>(i)) * scale;
}
__global__ void f32_to_bf16(const float* in, std::uint16_t* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::uint32_t u = __float_as_uint(in[i]);
    out[i] = static_cast<std::uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
  }
}

// Median milliseconds of `reps` timed calls after 3 warm-up calls.
double median_ms(int reps, const std::function<void()>& call) {
  cudaEvent_t a, b;
  ok(cudaEventCreate(&a), "cudaEventCreate");
  ok(cudaEventCreate(&b), "cudaEventCreate");
  for (int i = 0; i < 3; ++i) call();
  ok(cudaDeviceSynchronize(), "warm-up");
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    ok(cudaEventRecord(a), "cudaEventRecord");
    call();
    ok(cudaEventRecord(b), "cudaEventRecord");
    ok(cudaEventSynchronize(b), "cudaEventSynchronize");
    float ms = 0.0f;
    ok(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    t.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

ops::Matrix matrix(void* p, std::int64_t rows, std::int64_t cols, std::int32_t dtype) {
  return {{p, rows, cols, cols}, dtype};
}

// bf16 x bf16 -> bf16, D = A B^T with row-major A [m, k], B [n, k] (the
// same column-major TN mapping as the FP8 path), fp32 compute.
double bf16_gemm_ms(cublasLtHandle_t lt, const void* a, const void* b, void* d, std::int64_t m, std::int64_t n,
                    std::int64_t k, void* workspace, std::size_t workspace_size) {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, ld = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  ok(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
  const cublasOperation_t t = CUBLAS_OP_T, nn = CUBLAS_OP_N;
  ok(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t), "TRANSA");
  ok(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &nn, sizeof nn), "TRANSB");
  ok(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(n), k),
     "layout A");
  ok(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(m), k),
     "layout B");
  ok(cublasLtMatrixLayoutCreate(&ld, CUDA_R_16BF, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(m), n),
     "layout D");
  ok(cublasLtMatmulPreferenceCreate(&pref), "preference");
  ok(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_size,
                                          sizeof workspace_size),
     "workspace");
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  ok(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, ld, ld, pref, 1, &result, &found), "heuristic");
  if (found == 0) throw std::runtime_error("no bf16 cuBLASLt algorithm");
  const float alpha = 1.0f, beta = 0.0f;
  const double ms = median_ms(10, [&] {
    ok(cublasLtMatmul(lt, op, &alpha, b, la, a, lb, &beta, d, ld, d, ld, &result.algo, workspace, workspace_size,
                      nullptr),
       "cublasLtMatmul bf16");
  });
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(ld);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatmulDescDestroy(op);
  return ms;
}

const frugal::args::Spec& command_line() {
  using frugal::args::value_flag;
  static const frugal::args::Spec spec{
      "quant_gpu_bench",
      "quant_fp8's CUDA casts and FP8 GEMM, each next to its baseline",
      "quant_fp8's CUDA kernels and FP8 GEMM on one GPU, each next to its own baseline measured in the same run: "
      "the casts against a device-to-device copy of their fp32 input, the E4M3 GEMM against a bf16 cuBLASLt GEMM "
      "of the same shape. Without a device it prints SKIP and exits 0.",
      {},
      {value_flag("--rows", "R", "rows of the casts' fp32 input, 1 to 2^20 (default 16384)"),
       value_flag("--cols", "C", "its columns, 1 to 2^20 (default 8192: 512 MiB of fp32 in all)"),
       value_flag("--m", "M", "the GEMMs' m, 1 to 2^20 (default 8192)"),
       value_flag("--n", "N", "the GEMMs' n, 1 to 2^20 (default 8192)"),
       value_flag("--k", "K", "the GEMMs' k, 1 to 2^20 (default 8192)")}};
  return spec;
}

int bench(std::int64_t rows, std::int64_t cols, std::int64_t m, std::int64_t n, std::int64_t k) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) {
    std::printf("SKIP: no CUDA device\n");
    return 0;
  }
  try {
    cudaDeviceProp prop{};
    ok(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    std::printf("device: %s (sm_%d%d, %d SMs)\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
    const std::int64_t count = rows * cols;
    Buffer in32(static_cast<std::size_t>(count) * 4), in16(static_cast<std::size_t>(count) * 2),
        copy(static_cast<std::size_t>(count) * 4), codes(static_cast<std::size_t>(count)),
        codes_t(static_cast<std::size_t>(count));
    // Scales: room for the finest grid here (MX, one per 32 elements), plus amax and the GEMM's scale_inv.
    const std::size_t grid = static_cast<std::size_t>(rows * ((cols + 31) / 32));
    Buffer scale_inv(grid * 4), scale(grid * 4), small(64);
    fill_f32<<<1024, 256>>>(static_cast<float*>(in32.p), count, 100.0f);
    f32_to_bf16<<<1024, 256>>>(static_cast<const float*>(in32.p), static_cast<std::uint16_t*>(in16.p), count);
    ok(cudaDeviceSynchronize(), "init");
    float* s = static_cast<float*>(small.p);  // [0] amax, [1] [2] the GEMM operands' scale_inv

    // --- copy baseline ---------------------------------------------------
    const double bytes32 = static_cast<double>(count) * 4;
    const double copy_ms = median_ms(20, [&] {
      ok(cudaMemcpyAsync(copy.p, in32.p, static_cast<std::size_t>(bytes32), cudaMemcpyDeviceToDevice), "copy");
    });
    const double copy_gbps = 2.0 * bytes32 / (copy_ms * 1e6);
    std::printf("%-44s %8.3f ms %8.1f GB/s\n", "cudaMemcpy D2D fp32 buffer (read+write)", copy_ms, copy_gbps);

    // --- casts -------------------------------------------------------------
    const auto cast = [&](const char* label, std::int32_t dtype, ops::Recipe recipe, bool transposed,
                          std::int64_t block_rows, std::int64_t block_cols) {
      ops::QuantizeOp op;
      op.input = matrix(dtype == FRUGAL_DTYPE_FLOAT32 ? in32.p : in16.p, rows, cols, dtype);
      op.output = matrix(codes.p, rows, cols, FRUGAL_DTYPE_FLOAT8_E4M3FN);
      const ops::Matrix out_t = matrix(codes_t.p, cols, rows, FRUGAL_DTYPE_FLOAT8_E4M3FN);
      if (transposed) op.output_t = &out_t;
      op.format = ops::ElementFormat::e4m3;
      op.recipe = recipe;
      op.block_rows = block_rows;
      op.block_cols = block_cols;
      op.fixed_scale = 2.0f;
      op.fixed_scale_inv = 0.5f;
      op.scales.scale_inv = scale_inv.p;
      op.scales.scale = recipe == ops::Recipe::mx ? nullptr : static_cast<float*>(scale.p);
      op.scales.amax = s;
      const double ms = median_ms(20, [&] { qc::quantize_cuda(op, nullptr); });
      const double bytes = static_cast<double>(count) * (dtype == FRUGAL_DTYPE_FLOAT32 ? 4 : 2) +
                           static_cast<double>(count) * (transposed ? 2 : 1);
      const double gbps = bytes / (ms * 1e6);
      std::printf("%-44s %8.3f ms %8.1f GB/s  %5.1f%% of copy\n", label, ms, gbps, 100.0 * gbps / copy_gbps);
    };
    cast("delayed cast+amax fp32->e4m3", FRUGAL_DTYPE_FLOAT32, ops::Recipe::delayed, false, rows, cols);
    cast("delayed cast+amax bf16->e4m3", FRUGAL_DTYPE_BFLOAT16, ops::Recipe::delayed, false, rows, cols);
    cast("delayed cast+transpose+amax fp32->e4m3", FRUGAL_DTYPE_FLOAT32, ops::Recipe::delayed, true, rows, cols);
    cast("delayed cast+transpose+amax bf16->e4m3", FRUGAL_DTYPE_BFLOAT16, ops::Recipe::delayed, true, rows, cols);
    cast("current (amax pass + cast) bf16->e4m3", FRUGAL_DTYPE_BFLOAT16, ops::Recipe::current, false, rows, cols);
    cast("block 1x128 bf16->e4m3", FRUGAL_DTYPE_BFLOAT16, ops::Recipe::block, false, 1, 128);
    cast("block 128x128 bf16->e4m3", FRUGAL_DTYPE_BFLOAT16, ops::Recipe::block, false, 128, 128);
    cast("mx (1x32, E8M0) bf16->e4m3", FRUGAL_DTYPE_BFLOAT16, ops::Recipe::mx, false, 1, 32);

    // --- GEMM --------------------------------------------------------------
    Buffer a8(static_cast<std::size_t>(m * k)), b8(static_cast<std::size_t>(n * k)),
        a16(static_cast<std::size_t>(m * k) * 2), b16(static_cast<std::size_t>(n * k) * 2),
        d16(static_cast<std::size_t>(m * n) * 2), tmp(static_cast<std::size_t>(std::max(m, n) * k) * 4);
    // Operands: quantize random fp32 with the same kernels (current scaling).
    const auto make_operand = [&](void* out8, void* out16, std::int64_t r, float* operand_scale_inv) {
      fill_f32<<<1024, 256>>>(static_cast<float*>(tmp.p), r * k, 1.0f);
      f32_to_bf16<<<1024, 256>>>(static_cast<const float*>(tmp.p), static_cast<std::uint16_t*>(out16), r * k);
      ops::QuantizeOp op;
      op.input = matrix(tmp.p, r, k, FRUGAL_DTYPE_FLOAT32);
      op.output = matrix(out8, r, k, FRUGAL_DTYPE_FLOAT8_E4M3FN);
      op.recipe = ops::Recipe::current;
      op.block_rows = r;
      op.block_cols = k;
      op.scales.scale_inv = operand_scale_inv;
      qc::quantize_cuda(op, nullptr);
    };
    make_operand(a8.p, a16.p, m, s + 1);
    make_operand(b8.p, b16.p, n, s + 2);
    ok(cudaDeviceSynchronize(), "operands");
    const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
    double fp8_tflops[2] = {0.0, 0.0};
    for (const bool fast : {false, true}) {
      ops::GemmOp g;
      g.a = matrix(a8.p, m, k, FRUGAL_DTYPE_FLOAT8_E4M3FN);
      g.b = matrix(b8.p, n, k, FRUGAL_DTYPE_FLOAT8_E4M3FN);
      g.d = matrix(d16.p, m, n, FRUGAL_DTYPE_BFLOAT16);
      g.scale_inv_a = s + 1;
      g.scale_inv_b = s + 2;
      g.fast_accum = fast;
      const double ms = median_ms(10, [&] { qc::gemm_cuda(g); });
      fp8_tflops[fast ? 1 : 0] = flops / (ms * 1e9);
      std::printf("%-44s %8.3f ms %8.1f TFLOP/s\n",
                  fast ? "fp8 gemm e4m3 x e4m3 -> bf16 (fast accum)" : "fp8 gemm e4m3 x e4m3 -> bf16", ms,
                  fp8_tflops[fast ? 1 : 0]);
    }
    cublasLtHandle_t lt = nullptr;
    ok(cublasLtCreate(&lt), "cublasLtCreate");
    Buffer ws(32u << 20);
    const double bf16_ms = bf16_gemm_ms(lt, a16.p, b16.p, d16.p, m, n, k, ws.p, 32u << 20);
    cublasLtDestroy(lt);
    const double bf16_tflops = flops / (bf16_ms * 1e9);
    std::printf("%-44s %8.3f ms %8.1f TFLOP/s\n", "bf16 gemm bf16 x bf16 -> bf16", bf16_ms, bf16_tflops);
    std::printf("fp8/bf16 gemm speedup: %.2fx (fast accum %.2fx) at %lldx%lldx%lld\n", fp8_tflops[0] / bf16_tflops,
                fp8_tflops[1] / bf16_tflops, static_cast<long long>(m), static_cast<long long>(n),
                static_cast<long long>(k));
  } catch (const std::exception& e) {
    std::printf("FAIL: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return frugal::args::program_main(argc, argv, command_line(), [](const frugal::args::ParsedArgs& args) {
    constexpr std::int64_t kMax = std::int64_t{1} << 20;
    const auto size = [&](const char* flag, std::int64_t fallback) {
      return frugal::args::int_value(args, flag, fallback, 1, kMax);
    };
    return bench(size("--rows", 16384), size("--cols", 8192), size("--m", 8192), size("--n", 8192), size("--k", 8192));
  });
}
