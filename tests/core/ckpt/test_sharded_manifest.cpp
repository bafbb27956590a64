// The sharded checkpoint manifest (format 3) as a reader meets it: a
// checkpoint of a two-rank job is written here exactly as the schema
// describes it (abi/schema/checkpoint_manifest.fbs, flatbuffers + XXH3),
// then listed, verified, inspected and restored by an engine of one
// process (each tensor whole, from its chunks); each way a crafted manifest can describe chunks that are not
// one tensor is refused as CORRUPT, naming what is wrong.
#include <catch2/catch.hpp>
// Header-only, as the engine's own hash (core/src/hash.hpp).
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "checkpoint_manifest_generated.h"
#include "ckpt_fixture.hpp"
#include "test_helpers.hpp"

using namespace frugal::test;
namespace fs = std::filesystem;
namespace fb = frugal::checkpoint;

namespace {

constexpr uint64_t kBlockBytes = 4096;
const std::string kName = "full-000000000010-00000001";

struct Chunk {
  std::string name;
  std::vector<int64_t> global, offsets, shape;
  uint32_t rank = 0;
};

// The manifest's parts, editable before writing.
struct Sharded {
  uint32_t world_size = 2;
  uint64_t block_bytes = kBlockBytes;
  uint32_t format_version = 3;
  std::vector<Chunk> chunks;
  // Called on each record's block checksums before they are written.
  std::function<void(std::vector<uint64_t>&)> edit_blocks = [](std::vector<uint64_t>&) {};
  std::function<void(uint32_t&)> edit_shard_rank = [](uint32_t&) {};
  // The metadata of ranks other than 0 (rank_metadata), in this order.
  std::vector<std::pair<uint32_t, std::string>> rank_metadata;
};

// A [6, 8] float32 tensor "w" split on dim 0 (rows 0..2 and 3..5) and a
// [4] int64 "b" split 1 + 3, over two ranks.
Sharded two_rank_job() {
  Sharded s;
  s.chunks = {{"w", {6, 8}, {0, 0}, {3, 8}, 0},
              {"w", {6, 8}, {3, 0}, {3, 8}, 1},
              {"b", {4}, {0}, {1}, 0},
              {"b", {4}, {1}, {3}, 1}};
  return s;
}

void write_file(const fs::path& path, const std::vector<uint8_t>& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

// Writes the checkpoint: one shard per rank holding its chunks back to
// back (byte i of the shard is i * 7 + rank), then the manifest.
void write_checkpoint(const fs::path& root, const Sharded& s) {
  std::vector<std::vector<uint8_t>> shard_bytes(s.world_size);
  flatbuffers::FlatBufferBuilder builder;
  builder.ForceDefaults(true);
  std::vector<flatbuffers::Offset<fb::TensorRecord>> tensors;
  for (const auto& c : s.chunks) {
    const int32_t dtype = c.name == "w" ? FRUGAL_DTYPE_FLOAT32 : FRUGAL_DTYPE_INT64;
    uint64_t bytes = c.name == "w" ? 4 : 8;
    for (const int64_t e : c.shape) bytes *= static_cast<uint64_t>(e);
    auto& shard = shard_bytes[c.rank];
    const uint64_t offset = shard.size();
    for (uint64_t i = 0; i < bytes; ++i) shard.push_back(static_cast<uint8_t>((offset + i) * 7 + c.rank));
    std::vector<uint64_t> blocks;
    for (uint64_t at = 0; at < bytes; at += s.block_bytes)
      blocks.push_back(XXH3_64bits(shard.data() + offset + at, std::min(s.block_bytes, bytes - at)));
    s.edit_blocks(blocks);
    tensors.push_back(fb::CreateTensorRecord(
        builder, builder.CreateString(c.name), dtype, builder.CreateVector(c.shape), c.rank, offset, bytes,
        builder.CreateVector(c.global), builder.CreateVector(c.offsets), builder.CreateVector(blocks)));
  }
  std::vector<flatbuffers::Offset<fb::Shard>> shards;
  for (uint32_t r = 0; r < s.world_size; ++r) {
    const std::string key = "r" + std::to_string(10000 + r).substr(1) + "-shard-00000";
    write_file(root / kName / key, shard_bytes[r]);
    uint32_t rank = r;
    s.edit_shard_rank(rank);
    shards.push_back(fb::CreateShard(builder, builder.CreateString(key), shard_bytes[r].size(),
                                     XXH3_64bits(shard_bytes[r].data(), shard_bytes[r].size()), rank));
  }
  const std::vector<uint8_t> metadata{'m'};
  std::vector<flatbuffers::Offset<fb::RankMetadata>> own;
  for (const auto& [rank, bytes] : s.rank_metadata)
    own.push_back(
        fb::CreateRankMetadata(builder, rank, builder.CreateVector(std::vector<uint8_t>(bytes.begin(), bytes.end()))));
  const auto root_table =
      fb::CreateManifest(builder, s.format_version, builder.CreateString(kName), FRUGAL_CKPT_FULL, 10, 1, 0, false,
                         builder.CreateString("test"), builder.CreateVector(shards), builder.CreateVector(tensors),
                         builder.CreateVector(metadata), XXH3_64bits(metadata.data(), metadata.size()), 0, 1, 0,
                         s.world_size, s.block_bytes, own.empty() ? 0 : builder.CreateVector(own));
  fb::FinishManifestBuffer(builder, root_table);
  std::vector<uint8_t> out(builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize());
  REQUIRE(fb::GetMutableManifest(out.data())->mutate_checksum(XXH3_64bits(out.data(), out.size())));
  write_file(root / kName / "manifest", out);
}

struct Rig {
  ScratchDir dir;
  frugal::host::ContextPtr context = frugal::host::make_context();
  StorePtr store;
  EnginePtr engine;
  explicit Rig(const Sharded& s) {
    write_checkpoint(dir.path, s);
    store = open_fs_store(context.get(), dir.path.string());
    engine = make_engine(store.get());
  }
};

}  // namespace

TEST_CASE("a sharded checkpoint verifies, and inspect shows its world size, ranks and chunks") {
  Rig rig(two_rank_job());
  const frugal_ckpt_info info = verify_one(rig.engine.get(), kName);
  CHECK(info.status == FRUGAL_CKPT_VALID);
  CHECK(info.tensor_count == 2);  // two global tensors, whatever their four chunks
  CHECK(info.world_size == 2);
  char* text = nullptr;
  frugal::host::check(frugal_ckpt_inspect_json(rig.engine.get(), kName.c_str(), &text));
  const auto json = nlohmann::json::parse(text);
  frugal_string_free(text);
  CHECK(json["format_version"] == 3);
  CHECK(json["world_size"] == 2);
  CHECK(json["block_bytes"] == kBlockBytes);
  CHECK(json["shards"][1]["rank"] == 1);
  CHECK(json["tensors"][1]["name"] == "w");
  CHECK(json["tensors"][1]["global_shape"] == nlohmann::json::array({6, 8}));
  CHECK(json["tensors"][1]["offsets"] == nlohmann::json::array({3, 0}));
  CHECK(json["tensors"][1]["shape"] == nlohmann::json::array({3, 8}));
  CHECK(json["tensors"][1]["blocks"] == 1);
}

TEST_CASE("an engine of one process restores a sharded checkpoint, each tensor whole from its chunks") {
  Rig rig(two_rank_job());
  HostTensor w({6, 8});
  frugal::host::check(frugal_ckpt_register(rig.engine.get(), "w", &w.view, 0));
  std::vector<int64_t> b(4, -1);
  int64_t b_extent = 4;
  frugal_tensor b_view{};
  b_view.struct_size = sizeof(b_view);
  b_view.data = b.data();
  b_view.dtype = FRUGAL_DTYPE_INT64;
  b_view.ndim = 1;
  b_view.shape = &b_extent;
  b_view.device = {FRUGAL_DEVICE_CPU, 0};
  frugal::host::check(frugal_ckpt_register(rig.engine.get(), "b", &b_view, 0));
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  char metadata[8];
  size_t metadata_size = 0;
  frugal::host::check(frugal_ckpt_restore(rig.engine.get(), nullptr, FRUGAL_CKPT_ALL_KINDS, metadata, sizeof(metadata),
                                          &metadata_size, &info));
  CHECK(std::string(info.name) == kName);
  CHECK(std::string(metadata, metadata_size) == "m");
  // Rows 0..2 are the first 96 bytes of rank 0's shard, rows 3..5 of rank
  // 1's (byte i of rank r's shard is i * 7 + r); then "b": 8 bytes of rank
  // 0's shard and 24 of rank 1's, each after its "w" chunk.
  std::vector<uint8_t> expected_w(192);
  for (size_t i = 0; i < 192; ++i) expected_w[i] = static_cast<uint8_t>((i % 96) * 7 + (i < 96 ? 0 : 1));
  std::vector<uint8_t> got_w(192);
  std::memcpy(got_w.data(), w.data.data(), 192);
  CHECK(got_w == expected_w);
  std::vector<uint8_t> expected_b(32);
  for (size_t i = 0; i < 32; ++i) expected_b[i] = static_cast<uint8_t>(i < 8 ? (96 + i) * 7 : (96 + i - 8) * 7 + 1);
  std::vector<uint8_t> got_b(32);
  std::memcpy(got_b.data(), b.data(), 32);
  CHECK(got_b == expected_b);
}

TEST_CASE("a restore on another world size gives rank 0's metadata, and any saving rank's on request") {
  Sharded s = two_rank_job();
  s.rank_metadata = {{1, "rank one's cursor"}};
  Rig rig(s);
  char* text = nullptr;
  frugal::host::check(frugal_ckpt_inspect_json(rig.engine.get(), kName.c_str(), &text));
  const auto json = nlohmann::json::parse(text);
  frugal_string_free(text);
  CHECK(json["rank_metadata"] == nlohmann::json::array({{{"rank", 1}, {"bytes", 17}}}));

  std::vector<char> metadata(64);
  size_t size = 0;
  const auto before = outcome(frugal_ckpt_restored_metadata(rig.engine.get(), 0, metadata.data(), 64, &size));
  CHECK(before.code == FRUGAL_ERR_FAILED_PRECONDITION);
  HostTensor w({6, 8});
  frugal::host::check(frugal_ckpt_register(rig.engine.get(), "w", &w.view, 0));
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  frugal::host::check(frugal_ckpt_restore(rig.engine.get(), nullptr, FRUGAL_CKPT_ALL_KINDS, metadata.data(),
                                          metadata.size(), &size, &info));
  CHECK(std::string(metadata.data(), size) == "m");  // one process restoring a job of two: rank 0's
  frugal::host::check(frugal_ckpt_restored_metadata(rig.engine.get(), 0, metadata.data(), 64, &size));
  CHECK(std::string(metadata.data(), size) == "m");
  frugal::host::check(frugal_ckpt_restored_metadata(rig.engine.get(), 1, metadata.data(), 64, &size));
  CHECK(std::string(metadata.data(), size) == "rank one's cursor");
  const auto past = outcome(frugal_ckpt_restored_metadata(rig.engine.get(), 2, metadata.data(), 64, &size));
  CHECK(past.code == FRUGAL_ERR_OUT_OF_RANGE);
  CHECK_THAT(past.message, Catch::Contains("rank 2 is not a rank of the job of 2"));
  const auto null_size = outcome(frugal_ckpt_restored_metadata(rig.engine.get(), 1, metadata.data(), 64, nullptr));
  CHECK(null_size.code == FRUGAL_ERR_INVALID_ARGUMENT);
}

TEST_CASE("chunks that are not one tensor each make the manifest CORRUPT, naming why") {
  Sharded s = two_rank_job();
  std::string reason;
  SECTION("a chunk past its tensor") {
    s.chunks[1].offsets = {4, 0};
    reason = "a chunk of tensor 'w' that dimension 0 spans [4, 4 + 3), past the tensor's extent 6";
  }
  SECTION("two chunks over the same rows") {
    s.chunks[0].shape = {3, 8};
    s.chunks[1].offsets = {2, 0};
    s.chunks[1].shape = {3, 8};  // rows 2..4: row 2 twice, row 5 never, 48 elements in all
    reason = "tensor 'w' two chunks over the same elements";
  }
  SECTION("more elements than the tensor holds") {
    s.chunks.push_back({"w", {6, 8}, {5, 0}, {1, 8}, 1});
    reason = "tensor 'w' two chunks over the same elements";
  }
  SECTION("rows no chunk holds") {
    s.chunks[1].shape = {2, 8};
    reason = "covers 40 of the 48 elements of tensor 'w'";
  }
  SECTION("chunks of one name with different global shapes") {
    s.chunks[3].global = {5};
    s.chunks[3].shape = {4};
    reason = "the chunks of tensor 'b' different dtypes or global shapes";
  }
  SECTION("a missing block checksum") {
    s.edit_blocks = [](std::vector<uint64_t>& blocks) { blocks.clear(); };
    reason = "0 block checksums for";
  }
  SECTION("a shard of a rank outside the job") {
    s.edit_shard_rank = [](uint32_t& rank) { rank += 2; };
    reason = "rank 2 in a job of 2 ranks";
  }
  SECTION("blocks smaller than the format allows") {
    s.block_bytes = 512;
    reason = "blocks of 512 bytes, outside [4096, 1073741824]";
  }
  SECTION("format 3 without a world size") {
    s.world_size = 0;
    s.chunks.clear();
    reason = "manifest format 3 with world size 0";
  }
  SECTION("metadata of rank 0 among the other ranks'") {
    s.rank_metadata = {{0, "x"}};
    reason = "metadata of rank 0 in a job of 2 ranks";
  }
  SECTION("metadata of a rank outside the job") {
    s.rank_metadata = {{2, "x"}};
    reason = "metadata of rank 2 in a job of 2 ranks";
  }
  SECTION("the metadata of one rank twice") {
    s.world_size = 2;
    s.rank_metadata = {{1, "x"}, {1, "y"}};
    reason = "metadata of rank 1 out of order or twice";
  }
  SECTION("more metadata than a checkpoint holds") {
    s.rank_metadata = {{1, std::string(size_t{64} << 20, 'x')}};
    reason = "67108865 metadata bytes, more than the 67108864";
  }
  SECTION("chunk fields in a format-2 manifest") {
    s.format_version = 2;
    reason = "manifest format 2 with world size 2";
  }
  Rig rig(s);
  const frugal_ckpt_info info = verify_one(rig.engine.get(), kName);
  CHECK(info.status == FRUGAL_CKPT_CORRUPT);
  CHECK_THAT(std::string(info.reason), Catch::Contains(reason));
}
