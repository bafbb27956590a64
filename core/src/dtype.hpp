// Element types: sizes, names and the mapping to DLPack type codes.
#pragma once

#include <cstdint>
#include <optional>

#include "frugal/dlpack.h"

namespace frugal {

struct DtypeInfo {
  int32_t dtype;
  const char* name;
  uint8_t bits;
  uint8_t dlpack_code;
};

// nullptr for a value outside frugal_dtype_values.
const DtypeInfo* find_dtype(int32_t dtype);

// The frugal dtype for a DLPack (code, bits, lanes), if there is one.
std::optional<int32_t> dtype_from_dlpack(frugal_dlpack_dtype dtype);

}  // namespace frugal
