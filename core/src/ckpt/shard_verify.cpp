#include "ckpt/shard_verify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "ckpt/hash.hpp"
#include "error.hpp"
#include "frugal/checkpoint.h"

namespace frugal::ckpt {
namespace {
constexpr uint64_t kChunk = uint64_t{8} << 20;  // verification never holds more than this per call
}

DecodedManifest read_manifest(const Store& store, const std::string& checkpoint_key) {
  DecodedManifest out;
  const std::string key = checkpoint_key + "/manifest";
  try {
    const auto size = store.size_if_present(key);
    if (!size) {
      out.status = FRUGAL_CKPT_INCOMPLETE;
      out.reason = "no manifest: the save did not finish (interrupted, or still in progress), or retention is removing it";
      return out;
    }
    std::vector<uint8_t> bytes(*size);
    store.read(key, 0, bytes.data(), bytes.size());
    return decode_manifest(bytes);
  } catch (const Error& e) {
    out.status = FRUGAL_CKPT_UNREADABLE;
    out.reason = fmt::format("cannot read the manifest: {}", e.what());
    return out;
  }
}

ShardCheck verify_shards(const Store& store, const std::string& checkpoint_key, const Manifest& manifest) {
  auto corrupt = [](std::string reason) { return ShardCheck{FRUGAL_CKPT_CORRUPT, std::move(reason)}; };
  std::vector<uint8_t> buffer;
  for (const auto& shard : manifest.shards) {
    const std::string key = checkpoint_key + "/" + shard.key;
    try {
      const auto size = store.size_if_present(key);
      if (!size) return corrupt(fmt::format("shard '{}' is missing", shard.key));
      if (*size != shard.size)
        return corrupt(fmt::format("shard '{}' has {} bytes; the manifest says {} (truncated or overwritten)",
                                   shard.key, *size, shard.size));
      Xxh3Stream hash;
      buffer.resize(static_cast<size_t>(std::min(kChunk, std::max<uint64_t>(shard.size, 1))));
      for (uint64_t offset = 0; offset < shard.size;) {
        const uint64_t length = std::min<uint64_t>(buffer.size(), shard.size - offset);
        store.read(key, offset, buffer.data(), length);
        hash.update(buffer.data(), static_cast<size_t>(length));
        offset += length;
      }
      if (checksums_enforced() && hash.digest() != shard.xxh3)
        return corrupt(fmt::format("shard '{}' fails its checksum (stored {:016x}, computed {:016x})", shard.key,
                                   shard.xxh3, hash.digest()));
    } catch (const Error& e) {
      if (e.code() == FRUGAL_ERR_NOT_FOUND || e.code() == FRUGAL_ERR_OUT_OF_RANGE)
        return corrupt(fmt::format("shard '{}' changed while being read: {}", shard.key, e.what()));
      return ShardCheck{FRUGAL_CKPT_UNREADABLE, fmt::format("cannot read shard '{}': {}", shard.key, e.what())};
    }
  }
  return ShardCheck{FRUGAL_CKPT_VALID, {}};
}

}  // namespace frugal::ckpt
