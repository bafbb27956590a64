// The checksums of checkpoint shards and manifests and of the core's state
// blobs (state_frame.hpp): the SDK's one checksum, XXH3-64
// (frugal/sdk/checksum.hpp), under the names the core uses, with the bulk
// loop chosen at run time (support/checksum: AVX2 where the CPU has it),
// since hashing a shard is on the persist's critical path.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fast_checksum.hpp"
#include "frugal/sdk/checksum.hpp"

namespace frugal {

using sdk::checksums_enforced;

inline uint64_t xxh3(const void* data, size_t size) noexcept { return checksum::xxh3(data, size); }
using Xxh3Stream = checksum::Stream;

}  // namespace frugal
