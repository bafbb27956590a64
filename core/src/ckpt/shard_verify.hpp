// Reading a checkpoint back from its store: the manifest, and shard
// verification in bounded memory (streamed in chunks, whatever the size).
#pragma once

#include <cstdint>
#include <string>

#include "ckpt/manifest.hpp"
#include "store.hpp"

namespace frugal::ckpt {

// Reads and decodes "<checkpoint_key>/manifest". Missing -> INCOMPLETE;
// store failure -> UNREADABLE; otherwise as decode_manifest.
DecodedManifest read_manifest(const Store& store, const std::string& checkpoint_key);

// Checks every shard's size and XXH3 against the manifest. Returns "" when
// all match, else the reason naming the first shard that does not.
std::string verify_shards(const Store& store, const std::string& checkpoint_key, const Manifest& manifest);

}  // namespace frugal::ckpt
