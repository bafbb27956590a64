// The CUDA path in a build without CUDA: every call names what is missing.
#include "cuda/cuda_ops.hpp"

namespace frugal::quant::cuda {

namespace {
[[noreturn]] void no_cuda(const char* what) {
  throw UnsupportedDevice(std::string(what) + " on a CUDA tensor: this quant_fp8 was built without CUDA");
}
}  // namespace

bool built_with_cuda() noexcept { return false; }
void quantize_cuda(const ops::QuantizeOp&, float*) { no_cuda("quantize"); }
void dequantize_cuda(const ops::DequantizeOp&) { no_cuda("dequantize"); }
void gemm_cuda(const ops::GemmOp&) { no_cuda("gemm"); }

}  // namespace frugal::quant::cuda
