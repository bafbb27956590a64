#include "algorithms/mpi_types.hpp"

#include <algorithm>
#include <array>
#include <mutex>
#include <string>

#include "formats/half.hpp"
#include "frugal/comm_vtable.h"
#include "frugal/sdk/plugin_support.hpp"

namespace frugal::comm_mpi {
namespace {

template <float (*Widen)(uint16_t), uint16_t (*Narrow)(float), int32_t ReduceOp>
void reduce_halves(void* in, void* inout, int* length, MPI_Datatype* /*type*/) {
  const auto* a = static_cast<const uint16_t*>(in);
  auto* b = static_cast<uint16_t*>(inout);
  for (int i = 0; i < *length; ++i) {
    const float x = Widen(a[i]);
    const float y = Widen(b[i]);
    float r = 0.0f;
    if constexpr (ReduceOp == FRUGAL_REDUCE_SUM)
      r = x + y;
    else if constexpr (ReduceOp == FRUGAL_REDUCE_MAX)
      r = std::max(x, y);
    else
      r = std::min(x, y);
    b[i] = Narrow(r);
  }
}

constexpr float widen_fp16(uint16_t h) { return quant::fp16_to_fp32(h); }
constexpr uint16_t narrow_fp16(float f) { return quant::fp32_to_fp16(f); }
constexpr float widen_bf16(uint16_t h) { return quant::bf16_to_fp32(h); }
constexpr uint16_t narrow_bf16(float f) { return quant::fp32_to_bf16(f); }

// [0] fp16, [1] bf16; each by reduce_op - 1 (sum, max, min).
struct HalfOps {
  std::array<std::array<MPI_Op, 3>, 2> ops{};
};

const HalfOps& half_ops() {
  static const HalfOps ops = [] {
    HalfOps out;
    const std::array<std::array<MPI_User_function*, 3>, 2> functions = {{
        {&reduce_halves<widen_fp16, narrow_fp16, FRUGAL_REDUCE_SUM>,
         &reduce_halves<widen_fp16, narrow_fp16, FRUGAL_REDUCE_MAX>,
         &reduce_halves<widen_fp16, narrow_fp16, FRUGAL_REDUCE_MIN>},
        {&reduce_halves<widen_bf16, narrow_bf16, FRUGAL_REDUCE_SUM>,
         &reduce_halves<widen_bf16, narrow_bf16, FRUGAL_REDUCE_MAX>,
         &reduce_halves<widen_bf16, narrow_bf16, FRUGAL_REDUCE_MIN>},
    }};
    for (size_t t = 0; t < 2; ++t)
      for (size_t o = 0; o < 3; ++o)
        if (MPI_Op_create(functions[t][o], 1, &out.ops[t][o]) != MPI_SUCCESS)
          throw sdk::PluginError(FRUGAL_ERR_INTERNAL, "MPI_Op_create failed for a half-precision reduction");
    return out;  // never freed: MPI_Finalize releases them, and they outlive every comm
  }();
  return ops;
}

}  // namespace

MPI_Datatype datatype_of(int32_t dtype) {
  switch (dtype) {
    case FRUGAL_DTYPE_FLOAT32: return MPI_FLOAT;
    case FRUGAL_DTYPE_FLOAT64: return MPI_DOUBLE;
    case FRUGAL_DTYPE_INT32: return MPI_INT32_T;
    case FRUGAL_DTYPE_INT64: return MPI_INT64_T;
    case FRUGAL_DTYPE_INT16: return MPI_INT16_T;
    case FRUGAL_DTYPE_INT8: return MPI_INT8_T;
    case FRUGAL_DTYPE_FLOAT16:
    case FRUGAL_DTYPE_BFLOAT16: return MPI_UINT16_T;
    case FRUGAL_DTYPE_UINT8:
    case FRUGAL_DTYPE_BOOL:
    case FRUGAL_DTYPE_FLOAT8_E4M3FN:
    case FRUGAL_DTYPE_FLOAT8_E5M2:
    case FRUGAL_DTYPE_FLOAT8_E8M0FNU: return MPI_UINT8_T;
    default: throw sdk::PluginError(FRUGAL_ERR_UNSUPPORTED, "dtype " + std::to_string(dtype) + " has no MPI datatype");
  }
}

MPI_Op op_of(int32_t dtype, int32_t reduce_op) {
  if (reduce_op < FRUGAL_REDUCE_SUM || reduce_op > FRUGAL_REDUCE_MIN)
    throw sdk::PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "reduce_op " + std::to_string(reduce_op) + " is not known");
  if (dtype == FRUGAL_DTYPE_FLOAT16 || dtype == FRUGAL_DTYPE_BFLOAT16)
    return half_ops().ops[dtype == FRUGAL_DTYPE_BFLOAT16 ? 1 : 0][static_cast<size_t>(reduce_op - 1)];
  switch (reduce_op) {
    case FRUGAL_REDUCE_SUM: return MPI_SUM;
    case FRUGAL_REDUCE_MAX: return MPI_MAX;
    default: return MPI_MIN;
  }
}

}  // namespace frugal::comm_mpi
