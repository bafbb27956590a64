// The AVX2 build of XXH3-64 (xxh3_avx2.cpp): call only where
// fast_checksum.cpp found AVX2. XXH3's state and value do not depend on
// the vector width, so a stream may mix these calls with baseline ones.
#pragma once

#include <cstddef>
#include <cstdint>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace frugal::checksum::avx2 {

uint64_t xxh3(const void* data, size_t size) noexcept;
void update(XXH3_state_t* state, const void* data, size_t size) noexcept;

}  // namespace frugal::checksum::avx2
