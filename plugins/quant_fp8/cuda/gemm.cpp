// gemm_cuda: D[m, n] = alpha * (A * scale_inv_a) * (B * scale_inv_b)^T with
// cuBLASLt's FP8 kernels, fp32 accumulation.
//
// Layout. A [m, k] and B [n, k] are row-major with k contiguous; cuBLASLt is
// column-major. Read column-major, A's memory is A^T [k, m] and B's is
// B^T [k, n], and D's memory is D^T [n, m] = B * A^T. So the cuBLASLt call
// computes D^T with its "A" = our B (transposed: op = T, stored k x n) and
// its "B" = our A (op = N, stored k x m): the TN form Hopper's FP8 kernels
// require. Its A/B scale pointers are therefore scale_inv_b / scale_inv_a.
//
// Output. bf16 / fp16 / fp32 D: C has D's type (beta = 0, C unused).
// FP8 D: C must be 16-bit (bf16 here), D is multiplied by d_scale before
// the saturating cast, and cuBLASLt's AMAX_D gives amax(D) before that
// scale. Not-FP8 D with d_amax: a separate amax pass over D.
//
// Rules checked before cuBLASLt sees the problem (UnsupportedDevice naming
// the combination): FP8 operands not both E5M2; compute capability 8.9 or
// newer; k and the row strides of A and B multiples of 16 (16-byte
// aligned rows); D's row stride a multiple of 16 bytes; A, B, D 16-byte
// aligned. Whatever else cuBLASLt declines (no heuristic result) is
// UnsupportedDevice too; failing calls are CudaFailure with their status.
//
// Resources: one cuBLASLt handle, a 32 MiB workspace and an event per
// device, created at the first GEMM on it. GEMMs on one device share the
// workspace; the event orders them across streams (each waits for the
// previous one's work on the workspace), so concurrent calls from several
// threads and streams stay correct.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "cuda/cublaslt_api.hpp"
#include "cuda/cuda_ops.hpp"
#include "cuda/cuda_support.hpp"
#include "frugal/tensor.h"

namespace frugal::quant::cuda {
namespace {

using detail::check;
using detail::lt_check;
using detail::LtApi;

constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;

struct DeviceLt {
  const LtApi* api = nullptr;
  int device = 0;
  cublasLtHandle_t handle = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_size = 0;
  cudaEvent_t done = nullptr;
  bool used = false;
  std::mutex mutex;  // serialises use of the handle and the workspace

  DeviceLt() = default;
  DeviceLt(const DeviceLt&) = delete;
  DeviceLt& operator=(const DeviceLt&) = delete;

  ~DeviceLt() {
    // Unload or exit: errors (a runtime already shut down) are ignored.
    int previous = -1;
    const bool restore = cudaGetDevice(&previous) == cudaSuccess && previous != device;
    if (restore) static_cast<void>(cudaSetDevice(device));
    if (done != nullptr) static_cast<void>(cudaEventDestroy(done));
    if (workspace != nullptr) static_cast<void>(cudaFree(workspace));
    if (handle != nullptr) static_cast<void>(api->destroy(handle));
    if (restore) static_cast<void>(cudaSetDevice(previous));
  }
};

class LtResources {
 public:
  LtResources() = default;
  LtResources(const LtResources&) = delete;
  LtResources& operator=(const LtResources&) = delete;

  // The current device's resources (the caller set it), made on first use.
  DeviceLt& get(const LtApi& api, int device) {
    const std::lock_guard<std::mutex> lock(mutex_);
    std::unique_ptr<DeviceLt>& slot = devices_[device];
    if (!slot) {
      auto d = std::make_unique<DeviceLt>();
      d->api = &api;
      d->device = device;
      lt_check(api, api.create(&d->handle), "cublasLtCreate");
      if (cudaMalloc(&d->workspace, kWorkspaceBytes) == cudaSuccess) {
        d->workspace_size = kWorkspaceBytes;
      } else {
        // Out of memory: run with the algorithms that need no workspace.
        static_cast<void>(cudaGetLastError());
        d->workspace = nullptr;
      }
      check(cudaEventCreateWithFlags(&d->done, cudaEventDisableTiming), "cudaEventCreateWithFlags");
      slot = std::move(d);
    }
    return *slot;
  }

 private:
  std::mutex mutex_;
  std::map<int, std::unique_ptr<DeviceLt>> devices_;
};

LtResources& resources(const LtApi&) {
  // Constructed after cuBLASLt is loaded (the caller holds its table), so it
  // is destroyed before cuBLASLt's own state at exit.
  static LtResources r;
  return r;
}

// RAII for the cuBLASLt descriptors of one call.
struct Descriptors {
  const LtApi& api;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr, d = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;

  explicit Descriptors(const LtApi& lt) : api(lt) {}
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;
  ~Descriptors() {
    if (pref != nullptr) static_cast<void>(api.pref_destroy(pref));
    if (d != nullptr) static_cast<void>(api.layout_destroy(d));
    if (c != nullptr) static_cast<void>(api.layout_destroy(c));
    if (b != nullptr) static_cast<void>(api.layout_destroy(b));
    if (a != nullptr) static_cast<void>(api.layout_destroy(a));
    if (op != nullptr) static_cast<void>(api.desc_destroy(op));
  }
};

bool is_fp8(std::int32_t dtype) { return dtype == FRUGAL_DTYPE_FLOAT8_E4M3FN || dtype == FRUGAL_DTYPE_FLOAT8_E5M2; }

cudaDataType_t cuda_type(std::int32_t dtype) {
  switch (dtype) {
    case FRUGAL_DTYPE_FLOAT8_E4M3FN: return CUDA_R_8F_E4M3;
    case FRUGAL_DTYPE_FLOAT8_E5M2: return CUDA_R_8F_E5M2;
    case FRUGAL_DTYPE_BFLOAT16: return CUDA_R_16BF;
    case FRUGAL_DTYPE_FLOAT16: return CUDA_R_16F;
    default: return CUDA_R_32F;
  }
}

// The largest power of two (<= 256) dividing the address: what cuBLASLt's
// heuristics may assume (they assume 256 unless told).
std::uint32_t alignment_of(const void* p) {
  const auto v = reinterpret_cast<std::uintptr_t>(p);
  std::uint32_t a = 256;
  while (a > 1 && (v % a) != 0) a >>= 1;
  return a;
}

std::string combination(const ops::GemmOp& op) {
  return std::string("A ") + detail::dtype_name(op.a.dtype) + " x B " + detail::dtype_name(op.b.dtype) + " -> D " +
         detail::dtype_name(op.d.dtype) + ", m=" + std::to_string(op.a.rows()) + " n=" + std::to_string(op.b.rows()) +
         " k=" + std::to_string(op.a.cols()) + ", lda=" + std::to_string(op.a.row_stride()) +
         " ldb=" + std::to_string(op.b.row_stride()) + " ldd=" + std::to_string(op.d.row_stride());
}

[[noreturn]] void unsupported(const ops::GemmOp& op, const std::string& why) {
  throw UnsupportedDevice("FP8 GEMM on CUDA (" + combination(op) + "): " + why);
}

template <class T>
void set_desc(const LtApi& api, cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute, const T& value,
              const char* name) {
  lt_check(api, api.desc_set(desc, attribute, &value, sizeof(value)), name);
}

template <class T>
void set_pref(const LtApi& api, cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attribute,
              const T& value, const char* name) {
  lt_check(api, api.pref_set(pref, attribute, &value, sizeof(value)), name);
}

void validate(const ops::GemmOp& op) {
  if (!is_fp8(op.a.dtype) || !is_fp8(op.b.dtype)) unsupported(op, "A and B must be E4M3FN or E5M2");
  if (op.a.dtype == FRUGAL_DTYPE_FLOAT8_E5M2 && op.b.dtype == FRUGAL_DTYPE_FLOAT8_E5M2) {
    unsupported(op, "E5M2 x E5M2 has no cuBLASLt kernel (use E4M3 for one operand)");
  }
  const std::int32_t dt = op.d.dtype;
  if (!(dt == FRUGAL_DTYPE_FLOAT32 || dt == FRUGAL_DTYPE_BFLOAT16 || dt == FRUGAL_DTYPE_FLOAT16 || is_fp8(dt))) {
    unsupported(op, "D must be float32, bfloat16, float16 or FP8");
  }
  if (op.b.cols() != op.a.cols() || op.d.rows() != op.a.rows() || op.d.cols() != op.b.rows()) {
    throw std::invalid_argument("quant_fp8 CUDA GEMM: shapes do not match (" + combination(op) + ")");
  }
  if (op.scale_inv_a == nullptr || op.scale_inv_b == nullptr) {
    throw std::invalid_argument("quant_fp8 CUDA GEMM: scale_inv of A and B are required");
  }
  const std::size_t d_size = detail::dtype_size(dt);
  if (op.a.cols() % 16 != 0 || op.a.row_stride() % 16 != 0 || op.b.row_stride() % 16 != 0) {
    unsupported(op, "k and the row strides of A and B (lda, ldb) must be multiples of 16");
  }
  if ((static_cast<std::size_t>(op.d.row_stride()) * d_size) % 16 != 0) {
    unsupported(op, "the row stride of D must be a multiple of 16 bytes");
  }
  if (!detail::aligned(op.a.data(), 16) || !detail::aligned(op.b.data(), 16) || !detail::aligned(op.d.data(), 16)) {
    unsupported(op, "A, B and D must be 16-byte aligned");
  }
}

}  // namespace

void gemm_cuda(const ops::GemmOp& op) {
  validate(op);
  const std::int64_t m = op.a.rows();
  const std::int64_t k = op.a.cols();
  const std::int64_t n = op.b.rows();
  const bool fp8_d = is_fp8(op.d.dtype);
  const int device = detail::device_of(op.a.data(), "GEMM operand A");
  const detail::DeviceGuard guard(device);
  auto* stream = static_cast<cudaStream_t>(op.stream);

  int major = 0;
  int minor = 0;
  check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "cudaDeviceGetAttribute");
  check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), "cudaDeviceGetAttribute");
  if (major * 10 + minor < 89) {
    unsupported(op, "FP8 tensor cores need compute capability 8.9 or newer; device " + std::to_string(device) +
                        " has " + std::to_string(major) + "." + std::to_string(minor));
  }

  if (m == 0 || n == 0 || k == 0) {
    // Nothing to multiply: D is alpha * 0.
    if (m != 0 && n != 0) {
      const std::size_t d_size = detail::dtype_size(op.d.dtype);
      check(cudaMemset2DAsync(op.d.data(), static_cast<std::size_t>(op.d.row_stride()) * d_size, 0,
                              static_cast<std::size_t>(n) * d_size, static_cast<std::size_t>(m), stream),
            "cudaMemset2DAsync");
    }
    if (op.d_amax != nullptr) check(cudaMemsetAsync(op.d_amax, 0, sizeof(float), stream), "cudaMemsetAsync");
    return;
  }

  const LtApi& api = detail::lt_api();
  DeviceLt& dev = resources(api).get(api, device);
  Descriptors desc(api);

  lt_check(api, api.desc_create(&desc.op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
  set_desc(api, desc.op, CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T, "cublasLtMatmulDescSetAttribute(TRANSA)");
  set_desc(api, desc.op, CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N, "cublasLtMatmulDescSetAttribute(TRANSB)");
  // cuBLASLt's A is our B, its B our A (see the top of this file).
  set_desc(api, desc.op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, static_cast<const void*>(op.scale_inv_b),
           "cublasLtMatmulDescSetAttribute(A_SCALE_POINTER)");
  set_desc(api, desc.op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, static_cast<const void*>(op.scale_inv_a),
           "cublasLtMatmulDescSetAttribute(B_SCALE_POINTER)");
  const std::int8_t fast_accum = op.fast_accum ? 1 : 0;
  set_desc(api, desc.op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, fast_accum, "cublasLtMatmulDescSetAttribute(FAST_ACCUM)");
  if (fp8_d) {
    if (op.d_scale != nullptr) {
      set_desc(api, desc.op, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, static_cast<const void*>(op.d_scale),
               "cublasLtMatmulDescSetAttribute(D_SCALE_POINTER)");
    }
    if (op.d_amax != nullptr) {
      set_desc(api, desc.op, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, static_cast<void*>(op.d_amax),
               "cublasLtMatmulDescSetAttribute(AMAX_D_POINTER)");
    }
  }

  const auto rows_k = static_cast<std::uint64_t>(k);
  lt_check(api,
           api.layout_create(&desc.a, cuda_type(op.b.dtype), rows_k, static_cast<std::uint64_t>(n), op.b.row_stride()),
           "cublasLtMatrixLayoutCreate(A)");
  lt_check(api,
           api.layout_create(&desc.b, cuda_type(op.a.dtype), rows_k, static_cast<std::uint64_t>(m), op.a.row_stride()),
           "cublasLtMatrixLayoutCreate(B)");
  const cudaDataType_t d_type = cuda_type(op.d.dtype);
  const cudaDataType_t c_type = fp8_d ? CUDA_R_16BF : d_type;
  lt_check(api,
           api.layout_create(&desc.c, c_type, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(m),
                             op.d.row_stride()),
           "cublasLtMatrixLayoutCreate(C)");
  lt_check(api,
           api.layout_create(&desc.d, d_type, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(m),
                             op.d.row_stride()),
           "cublasLtMatrixLayoutCreate(D)");

  lt_check(api, api.pref_create(&desc.pref), "cublasLtMatmulPreferenceCreate");
  set_pref(api, desc.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, dev.workspace_size,
           "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)");
  const std::uint32_t align_a = alignment_of(op.b.data());
  const std::uint32_t align_b = alignment_of(op.a.data());
  const std::uint32_t align_d = alignment_of(op.d.data());
  set_pref(api, desc.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, align_a,
           "cublasLtMatmulPreferenceSetAttribute(MIN_ALIGNMENT_A_BYTES)");
  set_pref(api, desc.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, align_b,
           "cublasLtMatmulPreferenceSetAttribute(MIN_ALIGNMENT_B_BYTES)");
  set_pref(api, desc.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, align_d,
           "cublasLtMatmulPreferenceSetAttribute(MIN_ALIGNMENT_C_BYTES)");
  set_pref(api, desc.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, align_d,
           "cublasLtMatmulPreferenceSetAttribute(MIN_ALIGNMENT_D_BYTES)");

  const float alpha = op.alpha;
  const float beta = 0.0f;
  {
    // One caller at a time per device: the handle and the workspace are shared.
    const std::lock_guard<std::mutex> lock(dev.mutex);
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    const cublasStatus_t hs =
        api.heuristic(dev.handle, desc.op, desc.a, desc.b, desc.c, desc.d, desc.pref, 1, &result, &found);
    if (hs == CUBLAS_STATUS_NOT_SUPPORTED || (hs == CUBLAS_STATUS_SUCCESS && found == 0)) {
      unsupported(op, "cuBLASLt has no kernel for this combination (" + detail::lt_status(api, hs) + ")");
    }
    lt_check(api, hs, "cublasLtMatmulAlgoGetHeuristic");
    // The previous GEMM on this device (any stream) must be done with the workspace.
    if (dev.used) check(cudaStreamWaitEvent(stream, dev.done, 0), "cudaStreamWaitEvent");
    lt_check(api,
             api.matmul(dev.handle, desc.op, &alpha, op.b.data(), desc.a, op.a.data(), desc.b, &beta,
                        fp8_d ? nullptr : op.d.data(), desc.c, op.d.data(), desc.d, &result.algo, dev.workspace,
                        dev.workspace_size, stream),
             "cublasLtMatmul");
    check(cudaEventRecord(dev.done, stream), "cudaEventRecord");
    dev.used = true;
  }
  if (!fp8_d && op.d_amax != nullptr) detail::launch_matrix_amax(op.d, op.d_amax, stream);
}

}  // namespace frugal::quant::cuda
