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

// Checks every shard's size and XXH3 against the manifest, and each
// state's own XXH3 (read in the same pass). status is
// FRUGAL_CKPT_VALID when all match, CORRUPT for a missing, resized or
// mismatching shard, UNREADABLE when the store failed to read (an I/O
// error, possibly transient: never grounds for deleting anything).
struct ShardCheck {
  int32_t status;
  std::string reason;
};
ShardCheck verify_shards(const Store& store, const std::string& checkpoint_key, const Manifest& manifest);

}  // namespace frugal::ckpt
