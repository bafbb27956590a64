// XXH3-64 built for AVX2 (this file alone is compiled with -mavx2;
// fast_checksum.cpp calls it only on a CPU that has AVX2). It includes
// nothing but xxhash.h, whose functions are all static here, so no
// AVX2 code can stand in for a baseline function of another file.
// Before any include: xxhash.h picks its loop when first included.
#define XXH_INLINE_ALL
#define XXH_VECTOR XXH_AVX2
#include <xxhash.h>

#include "xxh3_avx2.hpp"

namespace frugal::checksum::avx2 {

uint64_t xxh3(const void* data, size_t size) noexcept { return XXH3_64bits(data, size); }

void update(XXH3_state_t* state, const void* data, size_t size) noexcept { XXH3_64bits_update(state, data, size); }

}  // namespace frugal::checksum::avx2
