#include "dtype.hpp"

#include <array>

#include "frugal/managed_tensor.h"

namespace frugal {
namespace {

constexpr std::array kDtypes = {
    DtypeInfo{FRUGAL_DTYPE_FLOAT32, "float32", 32, FRUGAL_DLPACK_FLOAT},
    DtypeInfo{FRUGAL_DTYPE_FLOAT16, "float16", 16, FRUGAL_DLPACK_FLOAT},
    DtypeInfo{FRUGAL_DTYPE_BFLOAT16, "bfloat16", 16, FRUGAL_DLPACK_BFLOAT},
    DtypeInfo{FRUGAL_DTYPE_FLOAT64, "float64", 64, FRUGAL_DLPACK_FLOAT},
    DtypeInfo{FRUGAL_DTYPE_FLOAT8_E4M3FN, "float8_e4m3fn", 8, FRUGAL_DLPACK_FLOAT8_E4M3FN},
    DtypeInfo{FRUGAL_DTYPE_FLOAT8_E5M2, "float8_e5m2", 8, FRUGAL_DLPACK_FLOAT8_E5M2},
    DtypeInfo{FRUGAL_DTYPE_FLOAT8_E8M0FNU, "float8_e8m0fnu", 8, FRUGAL_DLPACK_FLOAT8_E8M0FNU},
    DtypeInfo{FRUGAL_DTYPE_INT8, "int8", 8, FRUGAL_DLPACK_INT},
    DtypeInfo{FRUGAL_DTYPE_UINT8, "uint8", 8, FRUGAL_DLPACK_UINT},
    DtypeInfo{FRUGAL_DTYPE_INT16, "int16", 16, FRUGAL_DLPACK_INT},
    DtypeInfo{FRUGAL_DTYPE_INT32, "int32", 32, FRUGAL_DLPACK_INT},
    DtypeInfo{FRUGAL_DTYPE_INT64, "int64", 64, FRUGAL_DLPACK_INT},
    DtypeInfo{FRUGAL_DTYPE_BOOL, "bool", 8, FRUGAL_DLPACK_BOOL},
};

}  // namespace

const DtypeInfo* find_dtype(int32_t dtype) {
  for (const auto& info : kDtypes)
    if (info.dtype == dtype) return &info;
  return nullptr;
}

std::optional<int32_t> dtype_from_dlpack(frugal_dlpack_dtype dtype) {
  if (dtype.lanes != 1) return std::nullopt;
  for (const auto& info : kDtypes)
    if (info.dlpack_code == dtype.code && info.bits == dtype.bits) return info.dtype;
  return std::nullopt;
}

}  // namespace frugal

extern "C" {

FRUGAL_API int32_t frugal_dtype_bits(int32_t dtype) {
  const auto* info = frugal::find_dtype(dtype);
  return info != nullptr ? info->bits : 0;
}

FRUGAL_API const char* frugal_dtype_name(int32_t dtype) {
  const auto* info = frugal::find_dtype(dtype);
  return info != nullptr ? info->name : "unknown";
}

}  // extern "C"
