#include "ckpt/shard_verify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <vector>

#include "error.hpp"
#include "frugal/checkpoint.h"
#include "hash.hpp"

namespace frugal::ckpt {
namespace {

constexpr uint64_t kChunk = uint64_t{8} << 20;  // verification never holds more than this per call
// The chunk buffer's alignment, and every chunk's offset a multiple of it:
// a direct-I/O store (store_fs) reads the chunks with O_DIRECT.
constexpr size_t kChunkAlign = 4096;

struct FreeDeleter {
  void operator()(uint8_t* p) const noexcept { std::free(p); }
};

std::unique_ptr<uint8_t, FreeDeleter> chunk_buffer() {
  void* memory = nullptr;
  if (posix_memalign(&memory, kChunkAlign, kChunk) != 0)
    fail(FRUGAL_ERR_OUT_OF_MEMORY, "cannot allocate the {} byte buffer that verifies shards", kChunk);
  return std::unique_ptr<uint8_t, FreeDeleter>(static_cast<uint8_t*>(memory));
}

}  // namespace

DecodedManifest read_manifest(const Store& store, const std::string& checkpoint_key) {
  DecodedManifest out;
  const std::string key = checkpoint_key + "/manifest";
  try {
    const auto size = store.size_if_present(key);
    if (!size) {
      out.status = FRUGAL_CKPT_INCOMPLETE;
      out.reason =
          "no manifest: the save did not finish (interrupted, or still in progress), or retention is removing it";
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
  // The states each shard holds, each hashed from the chunks that cover
  // it while the shard streams past: a state is checked against its own
  // checksum too, in the same single read.
  std::vector<std::vector<const StateRecord*>> states_in(manifest.shards.size());
  for (const auto& state : manifest.states) states_in[state.shard].push_back(&state);
  std::unique_ptr<uint8_t, FreeDeleter> buffer;
  for (size_t index = 0; index < manifest.shards.size(); ++index) {
    const auto& shard = manifest.shards[index];
    const std::string key = checkpoint_key + "/" + shard.key;
    try {
      const auto size = store.size_if_present(key);
      if (!size) return corrupt(fmt::format("shard '{}' is missing", shard.key));
      if (*size != shard.size)
        return corrupt(fmt::format("shard '{}' has {} bytes; the manifest says {} (truncated or overwritten)",
                                   shard.key, *size, shard.size));
      Xxh3Stream hash;
      std::vector<Xxh3Stream> state_hashes(states_in[index].size());
      if (!buffer && shard.size > 0) buffer = chunk_buffer();
      for (uint64_t offset = 0; offset < shard.size;) {
        const uint64_t length = std::min<uint64_t>(kChunk, shard.size - offset);
        store.read(key, offset, buffer.get(), length);
        hash.update(buffer.get(), static_cast<size_t>(length));
        for (size_t s = 0; s < state_hashes.size(); ++s) {
          const StateRecord& state = *states_in[index][s];
          const uint64_t begin = std::max(offset, state.offset),
                         end = std::min(offset + length, state.offset + state.size);
          if (begin < end) state_hashes[s].update(buffer.get() + (begin - offset), static_cast<size_t>(end - begin));
        }
        offset += length;
      }
      if (checksums_enforced() && hash.digest() != shard.xxh3)
        return corrupt(fmt::format("shard '{}' fails its checksum (stored {:016x}, computed {:016x})", shard.key,
                                   shard.xxh3, hash.digest()));
      for (size_t s = 0; s < state_hashes.size(); ++s)
        if (checksums_enforced() && state_hashes[s].digest() != states_in[index][s]->xxh3)
          return corrupt(fmt::format("state '{}' fails its checksum (stored {:016x}, computed {:016x})",
                                     states_in[index][s]->name, states_in[index][s]->xxh3, state_hashes[s].digest()));
    } catch (const Error& e) {
      if (e.code() == FRUGAL_ERR_NOT_FOUND || e.code() == FRUGAL_ERR_OUT_OF_RANGE)
        return corrupt(fmt::format("shard '{}' changed while being read: {}", shard.key, e.what()));
      return ShardCheck{FRUGAL_CKPT_UNREADABLE, fmt::format("cannot read shard '{}': {}", shard.key, e.what())};
    }
  }
  return ShardCheck{FRUGAL_CKPT_VALID, {}};
}

}  // namespace frugal::ckpt
