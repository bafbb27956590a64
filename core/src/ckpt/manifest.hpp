// The checkpoint manifest in C++ form, and its flatbuffers encoding
// (abi/schema/checkpoint_manifest.fbs). Encoding embeds a checksum of the
// whole buffer, so decode() tells a torn or bit-flipped manifest from a good
// one, and a newer format from a corrupt one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace frugal::ckpt {

// The newest manifest format this build reads; it writes format 1 for a
// manifest without states (every reader reads it), 2 for one with states
// (abi/schema/checkpoint_manifest.fbs).
inline constexpr uint32_t kManifestFormatVersion = 2;
inline constexpr uint32_t kManifestFormatWithoutStates = 1;

// The most bytes one state may hold (FRUGAL_CKPT_STATE_MAX_SIZE).
inline constexpr uint64_t kMaxStateBytes = uint64_t{256} << 20;

struct ShardRecord {
  std::string key;  // relative to the checkpoint, e.g. "shard-00000"
  uint64_t size = 0;
  uint64_t xxh3 = 0;
};

struct TensorRecord {
  std::string name;
  int32_t dtype = 0;
  std::vector<int64_t> shape;
  uint32_t shard = 0;
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

// Where one host state lives (frugal_ckpt_register_state).
struct StateRecord {
  std::string name;
  uint32_t kinds = 0;  // the kinds it was registered for
  uint32_t shard = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t xxh3 = 0;  // of its bytes
};

struct Manifest {
  // As decoded; encode_manifest writes the format the contents need.
  uint32_t format_version = kManifestFormatVersion;
  std::string name;
  int32_t kind = 0;
  uint64_t step = 0;
  uint64_t sequence = 0;
  int64_t created_unix_ns = 0;
  bool emergency = false;
  std::string writer;
  uint64_t generation = 0;  // writer generation that committed it (0: written before generations)
  std::vector<ShardRecord> shards;
  std::vector<TensorRecord> tensors;
  std::vector<StateRecord> states;  // in registration order
  std::vector<uint8_t> metadata;

  [[nodiscard]] uint64_t shard_bytes() const;
};

// Serialises with the embedded checksum.
std::vector<uint8_t> encode_manifest(const Manifest& manifest);

// Outcome of decoding: status is a frugal_ckpt_status_values value; reason
// is empty exactly when status is FRUGAL_CKPT_VALID.
struct DecodedManifest {
  int32_t status = 0;
  std::string reason;
  Manifest manifest;
};
DecodedManifest decode_manifest(const std::vector<uint8_t>& bytes);

// Pretty JSON of a decoded manifest (for `frugal ckpt inspect`).
std::string manifest_to_json(const Manifest& manifest);

}  // namespace frugal::ckpt
