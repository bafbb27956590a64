// The checksums of checkpoint shards and manifests and of the core's state
// blobs (state_frame.hpp): the SDK's one checksum, XXH3-64
// (frugal/sdk/checksum.hpp), under the names the core uses.
#pragma once

#include "frugal/sdk/checksum.hpp"

namespace frugal {

using sdk::checksums_enforced;
using sdk::xxh3;
using sdk::Xxh3Stream;

}  // namespace frugal
