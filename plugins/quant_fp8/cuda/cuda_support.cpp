#include "cuda/cuda_support.hpp"

#include "frugal/tensor.h"

namespace frugal::quant::cuda {

bool built_with_cuda() noexcept { return true; }

namespace detail {

std::size_t dtype_size(std::int32_t dtype) noexcept {
  switch (dtype) {
    case FRUGAL_DTYPE_FLOAT32: return 4;
    case FRUGAL_DTYPE_FLOAT16:
    case FRUGAL_DTYPE_BFLOAT16: return 2;
    case FRUGAL_DTYPE_FLOAT8_E4M3FN:
    case FRUGAL_DTYPE_FLOAT8_E5M2:
    case FRUGAL_DTYPE_FLOAT8_E8M0FNU:
    case FRUGAL_DTYPE_INT8:
    case FRUGAL_DTYPE_UINT8: return 1;
    default: return 0;
  }
}

const char* dtype_name(std::int32_t dtype) noexcept {
  switch (dtype) {
    case FRUGAL_DTYPE_FLOAT32: return "float32";
    case FRUGAL_DTYPE_FLOAT16: return "float16";
    case FRUGAL_DTYPE_BFLOAT16: return "bfloat16";
    case FRUGAL_DTYPE_FLOAT64: return "float64";
    case FRUGAL_DTYPE_FLOAT8_E4M3FN: return "float8_e4m3fn";
    case FRUGAL_DTYPE_FLOAT8_E5M2: return "float8_e5m2";
    case FRUGAL_DTYPE_FLOAT8_E8M0FNU: return "float8_e8m0fnu";
    case FRUGAL_DTYPE_INT8: return "int8";
    case FRUGAL_DTYPE_UINT8: return "uint8";
    default: return "unknown dtype";
  }
}

}  // namespace detail
}  // namespace frugal::quant::cuda
