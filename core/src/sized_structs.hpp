// Reading and writing structs that start with size_t struct_size (ABI rule
// 3): a receiver reads only the bytes the producer declared and defaults
// the rest; a producer writes only as much as the caller's struct holds.
// This is what lets older and newer minors meet in both directions.
#pragma once

#include <algorithm>
#include <cstring>

#include "error.hpp"

namespace frugal {

// The longest string the core reads out of a plugin's structs (descriptor
// fields, option declarations): a longer one is refused, so a string
// without its terminator cannot run the core off the plugin's memory.
inline constexpr size_t kMaxPluginStringLength = 4096;

// Reads a producer's struct into a zeroed local T: fields beyond the
// producer's struct_size keep their defaults. `raw` must not be NULL.
template <typename T>
T read_sized(const T* raw) {
  size_t producer_size = 0;
  std::memcpy(&producer_size, raw, sizeof(size_t));
  T copy{};
  std::memcpy(static_cast<void*>(&copy), raw, std::min(producer_size, sizeof(T)));
  copy.struct_size = producer_size;
  return copy;
}

// Fails with ABI_MISMATCH unless the caller's struct reaches `min_size`
// bytes (through its last required field); `what` names it ("args").
template <typename T>
void require_size(const T* s, size_t min_size, const char* what) {
  if (s->struct_size < min_size)
    fail(FRUGAL_ERR_ABI_MISMATCH, "{}->struct_size is {}; at least {} bytes are required", what, s->struct_size,
         min_size);
}

// Writes `full` into the caller's struct, honouring the caller's struct_size.
template <typename Info>
void write_sized(Info* out, const Info& full, const char* function) {
  require_non_null(out, function, "info");
  const size_t caller_size = out->struct_size;
  if (caller_size < sizeof(size_t) + sizeof(void*))
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: info->struct_size is {}; set it to sizeof the struct ({})", function,
         caller_size, sizeof(Info));
  Info copy = full;
  copy.struct_size = caller_size;
  std::memcpy(static_cast<void*>(out), &copy, std::min(caller_size, sizeof(Info)));
}

}  // namespace frugal
