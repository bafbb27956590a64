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
// manifest without states (every reader reads it), 2 for one with states,
// 3 for a checkpoint written by a job of several ranks
// (abi/schema/checkpoint_manifest.fbs).
inline constexpr uint32_t kManifestFormatVersion = 3;
inline constexpr uint32_t kManifestFormatWithStates = 2;
inline constexpr uint32_t kManifestFormatWithoutStates = 1;

// The block sizes a format-3 manifest may checksum its chunks in: small
// enough that a reader of part of a chunk reads little more than it
// needs, large enough that the checksums stay a small part of the
// manifest.
inline constexpr uint64_t kMinBlockBytes = 4096;
inline constexpr uint64_t kMaxBlockBytes = uint64_t{1} << 30;

// The most host metadata bytes a checkpoint holds: one rank's
// frugal_ckpt_save_args metadata, and a job's (rank 0's plus each rank's
// that differs) in all.
inline constexpr uint64_t kMaxMetadataBytes = uint64_t{64} << 20;

// The most bytes one state may hold (FRUGAL_CKPT_STATE_MAX_SIZE).
inline constexpr uint64_t kMaxStateBytes = uint64_t{256} << 20;

struct ShardRecord {
  std::string key;  // relative to the checkpoint, e.g. "shard-00000"
  uint64_t size = 0;
  uint64_t xxh3 = 0;
  uint32_t rank = 0;  // the rank that wrote it (format 3; 0 before)
};

// One tensor, or (format 3) one chunk of one: the box `shape` at `offsets`
// inside `global_shape`. A record without global_shape is the whole
// tensor (global_shape == shape, offsets 0).
struct TensorRecord {
  std::string name;
  int32_t dtype = 0;
  std::vector<int64_t> shape;
  uint32_t shard = 0;
  uint64_t offset = 0;
  uint64_t bytes = 0;
  std::vector<int64_t> global_shape;  // format 3 only
  std::vector<int64_t> offsets;       // format 3 only
  std::vector<uint64_t> block_xxh3;   // format 3 only: per Manifest::block_bytes of its bytes
  bool rank_local = false;            // format 3: the whole tensor of the shard's rank, not a chunk
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

// One rank's metadata, where it differs from rank 0's (format 3).
struct RankMetadata {
  uint32_t rank = 0;  // 1 .. world_size - 1
  std::vector<uint8_t> bytes;
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
  std::vector<StateRecord> states;          // in registration order
  std::vector<uint8_t> metadata;            // rank 0's (the only one of one process)
  std::vector<RankMetadata> rank_metadata;  // format 3: ranks whose metadata differs from rank 0's, ascending
  uint32_t world_size = 0;                  // ranks that wrote it; 0: one process (formats 1 and 2)
  uint64_t block_bytes = 0;                 // the tensor records' block_xxh3 block size (format 3)

  [[nodiscard]] uint64_t shard_bytes() const;
  // The metadata `rank` of the writing job saved (rank 0's for a rank
  // rank_metadata does not list).
  [[nodiscard]] const std::vector<uint8_t>& metadata_of(uint32_t rank) const;
  // Every metadata byte stored: rank 0's and the other ranks' own.
  [[nodiscard]] uint64_t metadata_bytes() const;
};

// How many checksum blocks of `block_bytes` cover `bytes` (the last one
// may be shorter; none for an empty record).
[[nodiscard]] inline uint64_t block_count(uint64_t bytes, uint64_t block_bytes) {
  return bytes / block_bytes + (bytes % block_bytes != 0 ? 1 : 0);
}

// Serialises with the embedded checksum.
std::vector<uint8_t> encode_manifest(const Manifest& manifest);

// What decode_manifest checks a sharded manifest for: a whole checkpoint
// (every tensor's chunks cover it), or one rank's part of one, as the
// ranks exchange them before the commit (anything but the coverage).
enum class ManifestScope { whole, part };

// Outcome of decoding: status is a frugal_ckpt_status_values value; reason
// is empty exactly when status is FRUGAL_CKPT_VALID.
struct DecodedManifest {
  int32_t status = 0;
  std::string reason;
  Manifest manifest;
};
DecodedManifest decode_manifest(const std::vector<uint8_t>& bytes, ManifestScope scope = ManifestScope::whole);

// Pretty JSON of a decoded manifest (for `frugal ckpt inspect`).
std::string manifest_to_json(const Manifest& manifest);

}  // namespace frugal::ckpt
