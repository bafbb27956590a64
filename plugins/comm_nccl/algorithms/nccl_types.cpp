#include "algorithms/nccl_types.hpp"

#include "frugal/comm_vtable.h"
#include "frugal/tensor.h"
#include "frugal/types.h"

namespace frugal::comm_nccl {

std::optional<ncclDataType_t> reduce_type(int32_t dtype) {
  switch (dtype) {
    case FRUGAL_DTYPE_FLOAT32: return ncclFloat32;
    case FRUGAL_DTYPE_FLOAT64: return ncclFloat64;
    case FRUGAL_DTYPE_FLOAT16: return ncclFloat16;
    case FRUGAL_DTYPE_BFLOAT16: return ncclBfloat16;
    case FRUGAL_DTYPE_INT32: return ncclInt32;
    case FRUGAL_DTYPE_INT64: return ncclInt64;
    case FRUGAL_DTYPE_UINT8: return ncclUint8;
    // int8, int16, bool and the fp8 formats: the core allows no reduction of them.
    default: return std::nullopt;
  }
}

std::optional<ncclRedOp_t> reduce_op(int32_t op) {
  switch (op) {
    case FRUGAL_REDUCE_SUM: return ncclSum;
    case FRUGAL_REDUCE_MAX: return ncclMax;
    case FRUGAL_REDUCE_MIN: return ncclMin;
    default: return std::nullopt;
  }
}

const char* nccl_op_name(ncclRedOp_t op) {
  switch (op) {
    case ncclSum: return "ncclSum";
    case ncclMax: return "ncclMax";
    case ncclMin: return "ncclMin";
    case ncclProd: return "ncclProd";
    case ncclAvg: return "ncclAvg";
    default: return "a custom ncclRedOp_t";
  }
}

const char* nccl_type_name(ncclDataType_t type) {
  switch (type) {
    case ncclInt8: return "ncclInt8";
    case ncclUint8: return "ncclUint8";
    case ncclInt32: return "ncclInt32";
    case ncclUint32: return "ncclUint32";
    case ncclInt64: return "ncclInt64";
    case ncclUint64: return "ncclUint64";
    case ncclFloat16: return "ncclFloat16";
    case ncclFloat32: return "ncclFloat32";
    case ncclFloat64: return "ncclFloat64";
    case ncclBfloat16: return "ncclBfloat16";
    default: return "an ncclDataType_t unknown here";
  }
}

const char* nccl_result_name(ncclResult_t result) {
  switch (result) {
    case ncclSuccess: return "ncclSuccess";
    case ncclUnhandledCudaError: return "ncclUnhandledCudaError";
    case ncclSystemError: return "ncclSystemError";
    case ncclInternalError: return "ncclInternalError";
    case ncclInvalidArgument: return "ncclInvalidArgument";
    case ncclInvalidUsage: return "ncclInvalidUsage";
    case ncclRemoteError: return "ncclRemoteError";
    case ncclInProgress: return "ncclInProgress";
    default: return "an ncclResult_t unknown here";
  }
}

int32_t error_code(ncclResult_t result, Phase phase) {
  switch (result) {
    case ncclRemoteError:
    case ncclSystemError: return FRUGAL_ERR_IO;
    case ncclUnhandledCudaError: return FRUGAL_ERR_DEVICE;
    case ncclInvalidArgument:
    case ncclInvalidUsage: return phase == Phase::join ? FRUGAL_ERR_INVALID_ARGUMENT : FRUGAL_ERR_INTERNAL;
    default: return FRUGAL_ERR_INTERNAL;
  }
}

}  // namespace frugal::comm_nccl
