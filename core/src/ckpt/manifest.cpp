#include "ckpt/manifest.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <tuple>

#include "checkpoint_manifest_generated.h"
#include "ckpt/chunk_box.hpp"
#include "error.hpp"
#include "frugal/checkpoint.h"
#include "frugal/managed_tensor.h"
#include "hash.hpp"
#include "json_text.hpp"
#include "store.hpp"

namespace frugal::ckpt {
namespace fb = frugal::checkpoint;

namespace {

constexpr size_t kMaxManifestBytes = size_t{128} << 20;  // 64 MiB metadata + records

// Checksum of `bytes` with the checksum field's 8 bytes taken as zero.
uint64_t checksum_without_field(std::vector<uint8_t> bytes, const uint8_t* field_in_original,
                                const uint8_t* original_begin) {
  std::memset(bytes.data() + (field_in_original - original_begin), 0, sizeof(uint64_t));
  return xxh3(bytes.data(), bytes.size());
}

// Why the shard and tensor records cannot all be true at once ("" when they
// can): a checksum proves the bytes are the ones written, not that the
// writer was sane. A restore must never start on a manifest it cannot
// finish, so every record is checked here, before any shard is read.
std::string inconsistent_records(const Manifest& m) {
  std::set<std::string> keys;
  for (const auto& shard : m.shards) {
    // A shard key is joined to the checkpoint's key: it must be one the
    // store accepts (relative, no "..", no empty component).
    try {
      check_store_key(shard.key);
    } catch (const Error& e) {
      return fmt::format("manifest lists an invalid shard key '{}': {}", shard.key, e.what());
    }
    if (!keys.insert(shard.key).second) return fmt::format("manifest lists shard '{}' twice", shard.key);
    if (shard.key == "manifest") return "manifest lists a shard named 'manifest'";
  }
  // Tensors and states share one namespace.
  std::set<std::string> tensor_names, state_names;
  // Per shard: the non-empty placements (offset, end, name), to find
  // overlaps, and the first tensor and state placed in it: a shard holds
  // tensors or states, never both (restore reads them into different
  // buffers).
  std::vector<std::vector<std::tuple<uint64_t, uint64_t, const std::string*>>> placed(m.shards.size());
  std::vector<uint64_t> placed_bytes(m.shards.size(), 0);
  std::vector<const std::string*> first_tensor(m.shards.size(), nullptr), first_state(m.shards.size(), nullptr);
  // A sharded checkpoint lists a tensor once per chunk (checked by
  // inconsistent_chunks) and a rank's own tensors and states once per rank.
  auto rank_of = [&](uint32_t shard) { return shard < m.shards.size() ? m.shards[shard].rank : 0; };
  std::set<std::pair<std::string, uint32_t>> per_rank;
  for (const auto& t : m.tensors) {
    if (!tensor_names.insert(t.name).second && m.world_size == 0)
      return fmt::format("manifest lists tensor '{}' twice", t.name);
    if (t.rank_local && !per_rank.emplace(t.name, rank_of(t.shard)).second)
      return fmt::format("manifest lists tensor '{}' twice for rank {}", t.name, rank_of(t.shard));
    if (t.bytes > 0) placed[t.shard].emplace_back(t.offset, t.offset + t.bytes, &t.name);
    placed_bytes[t.shard] += t.bytes;  // <= shard size each (placed inside it), so no overflow
    if (first_tensor[t.shard] == nullptr) first_tensor[t.shard] = &t.name;
  }
  for (const auto& st : m.states) {
    if (tensor_names.count(st.name) != 0) return fmt::format("manifest lists '{}' as a tensor and as a state", st.name);
    if (!state_names.insert(st.name).second && m.world_size == 0)
      return fmt::format("manifest lists state '{}' twice", st.name);
    if (m.world_size > 0 && !per_rank.emplace(st.name, rank_of(st.shard)).second)
      return fmt::format("manifest lists state '{}' twice for rank {}", st.name, rank_of(st.shard));
    if ((st.kinds & ~FRUGAL_CKPT_ALL_KINDS) != 0 || (st.kinds & static_cast<uint32_t>(m.kind)) == 0)
      return fmt::format("manifest gives state '{}' kinds {:#x}, which do not include this checkpoint's kind {}",
                         st.name, st.kinds, m.kind);
    if (st.size > 0) placed[st.shard].emplace_back(st.offset, st.offset + st.size, &st.name);
    placed_bytes[st.shard] += st.size;
    if (first_state[st.shard] == nullptr) first_state[st.shard] = &st.name;
  }
  for (size_t i = 0; i < m.shards.size(); ++i) {
    const bool states = first_state[i] != nullptr;
    if (states && first_tensor[i] != nullptr)
      return fmt::format("manifest places tensor '{}' and state '{}' in the same shard '{}'", *first_tensor[i],
                         *first_state[i], m.shards[i].key);
    auto& runs = placed[i];
    // Stable, by placement only: the message names the tensors in manifest order.
    std::stable_sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) {
      return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
    });
    for (size_t j = 1; j < runs.size(); ++j)
      if (std::get<0>(runs[j]) < std::get<1>(runs[j - 1]))
        return fmt::format("manifest places {} '{}' and '{}' over the same bytes of shard '{}'",
                           states ? "states" : "tensors", *std::get<2>(runs[j - 1]), *std::get<2>(runs[j]),
                           m.shards[i].key);
    // The writer packs whole tensors (or states) back to back: a shard
    // holds exactly their bytes.
    if (placed_bytes[i] != m.shards[i].size)
      return fmt::format("manifest gives shard '{}' {} bytes but places {} bytes of {} in it", m.shards[i].key,
                         m.shards[i].size, placed_bytes[i], states ? "states" : "tensors");
  }
  return {};
}

// Why the chunks of a sharded (format 3) manifest cannot be one tensor
// each ("" when they can): every chunk lies inside its tensor, the chunks
// of one name agree on dtype and global shape, none overlaps another, and
// together they cover the tensor (disjoint, so their element counts add
// up to the tensor's exactly when they do). Also the rank of each shard
// and each chunk's block checksum count.
std::string inconsistent_chunks(const Manifest& m, ManifestScope scope) {
  for (const auto& shard : m.shards)
    if (shard.rank >= m.world_size)
      return fmt::format("manifest gives shard '{}' rank {} in a job of {} ranks", shard.key, shard.rank, m.world_size);
  std::map<std::string, std::vector<const TensorRecord*>> by_name;
  std::set<std::string> local_names;
  for (const auto& t : m.tensors) {
    if (t.rank_local && (t.global_shape != t.shape ||
                         std::any_of(t.offsets.begin(), t.offsets.end(), [](int64_t o) { return o != 0; })))
      return fmt::format("manifest gives rank-local tensor '{}' a box other than the whole tensor", t.name);
    if (auto why = box_outside({t.offsets, t.shape}, t.global_shape); !why.empty())
      return fmt::format("manifest gives a chunk of tensor '{}' that {}", t.name, why);
    if (t.block_xxh3.size() != block_count(t.bytes, m.block_bytes))
      return fmt::format("manifest gives a chunk of tensor '{}' {} block checksums for {} bytes in blocks of {}",
                         t.name, t.block_xxh3.size(), t.bytes, m.block_bytes);
    if (t.rank_local)
      local_names.insert(t.name);
    else
      by_name[t.name].push_back(&t);
  }
  for (const auto& name : local_names)
    if (by_name.count(name) != 0)
      return fmt::format("manifest lists tensor '{}' both as rank-local and as chunks of a global tensor", name);
  for (const auto& [name, chunks] : by_name) {
    const TensorRecord& first = *chunks.front();
    const auto global = element_count(first.global_shape);
    if (!global) return fmt::format("manifest gives tensor '{}' a global shape too large to address", name);
    std::vector<Box> boxes;
    uint64_t covered = 0;
    for (const TensorRecord* c : chunks) {
      if (c->dtype != first.dtype || c->global_shape != first.global_shape)
        return fmt::format("manifest gives the chunks of tensor '{}' different dtypes or global shapes", name);
      const uint64_t count = *element_count(c->shape);  // inside the global shape, so it fits
      if (count == 0) continue;
      // <= global while the chunks are disjoint; past it they are not.
      if (__builtin_add_overflow(covered, count, &covered) || covered > *global)
        return fmt::format("manifest gives tensor '{}' two chunks over the same elements", name);
      boxes.push_back({c->offsets, c->shape});
    }
    if (scope == ManifestScope::whole && covered != *global)
      return fmt::format("manifest covers {} of the {} elements of tensor '{}'", covered, *global, name);
    if (any_overlap(boxes)) return fmt::format("manifest gives tensor '{}' two chunks over the same elements", name);
  }
  return {};
}

// True when [offset, offset + size) lies inside shard `shard`, without overflow.
bool inside_shard(const std::vector<ShardRecord>& shards, uint32_t shard, uint64_t offset, uint64_t size) {
  return shard < shards.size() && offset + size >= offset && offset + size <= shards[shard].size;
}

}  // namespace

uint64_t Manifest::shard_bytes() const {
  uint64_t total = 0;
  for (const auto& shard : shards) total += shard.size;
  return total;
}

const std::vector<uint8_t>& Manifest::metadata_of(uint32_t rank) const {
  const auto it = std::lower_bound(rank_metadata.begin(), rank_metadata.end(), rank,
                                   [](const RankMetadata& entry, uint32_t r) { return entry.rank < r; });
  return it != rank_metadata.end() && it->rank == rank ? it->bytes : metadata;
}

uint64_t Manifest::metadata_bytes() const {
  uint64_t total = metadata.size();
  for (const auto& entry : rank_metadata) total += entry.bytes.size();
  return total;
}

std::vector<uint8_t> encode_manifest(const Manifest& m) {
  flatbuffers::FlatBufferBuilder builder(4096 + m.metadata_bytes());
  builder.ForceDefaults(true);  // keeps `checksum` present so it can be patched in place
  std::vector<flatbuffers::Offset<fb::Shard>> shards;
  for (const auto& s : m.shards)
    shards.push_back(fb::CreateShard(builder, builder.CreateString(s.key), s.size, s.xxh3, s.rank));
  const bool sharded = m.world_size > 0;
  std::vector<flatbuffers::Offset<fb::TensorRecord>> tensors;
  for (const auto& t : m.tensors)
    tensors.push_back(fb::CreateTensorRecord(
        builder, builder.CreateString(t.name), t.dtype, builder.CreateVector(t.shape), t.shard, t.offset, t.bytes,
        sharded ? builder.CreateVector(t.global_shape) : 0, sharded ? builder.CreateVector(t.offsets) : 0,
        sharded ? builder.CreateVector(t.block_xxh3) : 0, t.rank_local));
  std::vector<flatbuffers::Offset<fb::StateRecord>> states;
  for (const auto& st : m.states)
    states.push_back(
        fb::CreateStateRecord(builder, builder.CreateString(st.name), st.kinds, st.shard, st.offset, st.size, st.xxh3));
  std::vector<flatbuffers::Offset<fb::RankMetadata>> rank_metadata;
  for (const auto& entry : m.rank_metadata)
    rank_metadata.push_back(fb::CreateRankMetadata(builder, entry.rank, builder.CreateVector(entry.bytes)));
  // Format 1 readers would misread the shards of a manifest with states,
  // and format 2 readers a chunk for a tensor: each manifest says the
  // oldest format that reads it right.
  const uint32_t format =
      sharded ? kManifestFormatVersion : (m.states.empty() ? kManifestFormatWithoutStates : kManifestFormatWithStates);
  const auto root = fb::CreateManifest(
      builder, format, builder.CreateString(m.name), m.kind, m.step, m.sequence, m.created_unix_ns, m.emergency,
      builder.CreateString(m.writer), builder.CreateVector(shards), builder.CreateVector(tensors),
      builder.CreateVector(m.metadata), xxh3(m.metadata.data(), m.metadata.size()), 0, m.generation,
      m.states.empty() ? 0 : builder.CreateVector(states), m.world_size, sharded ? m.block_bytes : 0,
      rank_metadata.empty() ? 0 : builder.CreateVector(rank_metadata));
  fb::FinishManifestBuffer(builder, root);
  std::vector<uint8_t> bytes(builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize());
  auto* manifest = fb::GetMutableManifest(bytes.data());
  const uint64_t sum = xxh3(bytes.data(), bytes.size());  // checksum field is 0 here
  if (!manifest->mutate_checksum(sum)) throw std::logic_error("manifest checksum field missing");
  return bytes;
}

DecodedManifest decode_manifest(const std::vector<uint8_t>& bytes, ManifestScope scope) {
  DecodedManifest out;
  auto corrupt = [&](std::string reason) {
    out.status = FRUGAL_CKPT_CORRUPT;
    out.reason = std::move(reason);
    return out;
  };
  if (bytes.size() < 8 || bytes.size() > kMaxManifestBytes)
    return corrupt(fmt::format("manifest has an implausible size ({} bytes)", bytes.size()));
  if (!fb::ManifestBufferHasIdentifier(bytes.data()))
    return corrupt("manifest does not start with the frugal manifest identifier 'FRCK'");
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  // Fields are only ever appended, so a newer manifest still passes this
  // structure check and still carries the checksum: check the checksum
  // before judging the version, or a bit flip in format_version would read
  // as "newer format" (kept forever by retention).
  if (!fb::VerifyManifestBuffer(verifier))
    return corrupt("manifest fails the flatbuffers structure check (torn or overwritten)");
  const fb::Manifest* m = fb::GetManifest(bytes.data());
  const uint8_t* field = nullptr;
  {
    // Locate the checksum field's bytes to zero them in a copy.
    const auto* table = reinterpret_cast<const flatbuffers::Table*>(m);
    field = table->GetAddressOf(fb::Manifest::VT_CHECKSUM);
    if (field == nullptr) return corrupt("manifest has no checksum field");
  }
  const uint64_t expected = m->checksum();
  const uint64_t actual = checksum_without_field(bytes, field, bytes.data());
  if (checksums_enforced() && expected != actual)
    return corrupt(fmt::format("manifest checksum mismatch (stored {:016x}, computed {:016x})", expected, actual));
  if (m->format_version() > kManifestFormatVersion) {
    out.status = FRUGAL_CKPT_NEWER_FORMAT;
    out.reason = fmt::format("manifest format version {} is newer than this reader's {} (upgrade frugal to read it)",
                             m->format_version(), kManifestFormatVersion);
    return out;
  }
  if (m->format_version() == 0) return corrupt("manifest format version is 0");

  Manifest& r = out.manifest;
  r.format_version = m->format_version();
  r.name = m->name() != nullptr ? m->name()->str() : "";
  r.kind = m->kind();
  r.step = m->step();
  r.sequence = m->sequence();
  r.created_unix_ns = m->created_unix_ns();
  r.emergency = m->emergency();
  r.writer = m->writer() != nullptr ? m->writer()->str() : "";
  r.generation = m->generation();
  if (m->shards() != nullptr)
    for (const auto* s : *m->shards())
      r.shards.push_back({s->key() != nullptr ? s->key()->str() : "", s->size(), s->xxh3(), s->rank()});
  r.world_size = m->world_size();
  r.block_bytes = m->block_bytes();
  const bool sharded = r.format_version >= 3;
  if (sharded != (r.world_size > 0))
    return corrupt(fmt::format("manifest format {} with world size {} (format 3 is exactly the sharded one)",
                               r.format_version, r.world_size));
  if (!sharded && std::any_of(r.shards.begin(), r.shards.end(), [](const auto& s) { return s.rank != 0; }))
    return corrupt("manifest of one process gives a shard a rank");
  if (sharded && (r.block_bytes < kMinBlockBytes || r.block_bytes > kMaxBlockBytes))
    return corrupt(fmt::format("manifest checksums its chunks in blocks of {} bytes, outside [{}, {}]", r.block_bytes,
                               kMinBlockBytes, kMaxBlockBytes));
  if (m->tensors() != nullptr)
    for (const auto* t : *m->tensors()) {
      TensorRecord record;
      record.name = t->name() != nullptr ? t->name()->str() : "";
      record.dtype = t->dtype();
      if (t->shape() != nullptr) {
        // The verifier checks a vector's length word (4-byte aligned), not
        // its 8-byte elements; reading a misaligned one is undefined. (An
        // empty vector has no elements, and writers do not align it.)
        if (t->shape()->size() > 0 && reinterpret_cast<uintptr_t>(t->shape()->Data()) % alignof(int64_t) != 0)
          return corrupt(fmt::format("manifest stores the shape of tensor '{}' off its 8-byte alignment", record.name));
        record.shape.assign(t->shape()->begin(), t->shape()->end());
      }
      record.shard = t->shard();
      record.offset = t->offset();
      record.bytes = t->bytes();
      if (sharded != (t->global_shape() != nullptr && t->offsets() != nullptr && t->block_xxh3() != nullptr))
        return corrupt(fmt::format("manifest gives tensor '{}' {} in format {}", record.name,
                                   sharded ? "no chunk fields" : "chunk fields", r.format_version));
      if (sharded) {
        // Same alignment rule as the shape's, for each 8-byte vector.
        auto aligned = [](const auto* v) {
          return v->size() == 0 || reinterpret_cast<uintptr_t>(v->Data()) % alignof(int64_t) == 0;
        };
        if (!aligned(t->global_shape()) || !aligned(t->offsets()) || !aligned(t->block_xxh3()))
          return corrupt(
              fmt::format("manifest stores a chunk field of tensor '{}' off its 8-byte alignment", record.name));
        record.global_shape.assign(t->global_shape()->begin(), t->global_shape()->end());
        record.offsets.assign(t->offsets()->begin(), t->offsets()->end());
        record.block_xxh3.assign(t->block_xxh3()->begin(), t->block_xxh3()->end());
      }
      record.rank_local = t->rank_local();
      if (record.rank_local && !sharded)
        return corrupt(fmt::format("manifest of one process marks tensor '{}' rank-local", record.name));
      if (!inside_shard(r.shards, record.shard, record.offset, record.bytes))
        return corrupt(fmt::format("manifest places tensor '{}' outside its shard", record.name));
      uint64_t declared = static_cast<uint64_t>(frugal_dtype_bits(record.dtype) / 8);
      bool overflow = declared == 0;
      for (const int64_t extent : record.shape)
        overflow = overflow || extent < 0 || __builtin_mul_overflow(declared, static_cast<uint64_t>(extent), &declared);
      if (overflow || declared != record.bytes)
        return corrupt(fmt::format("manifest gives tensor '{}' {} bytes, which its dtype and shape do not match",
                                   record.name, record.bytes));
      r.tensors.push_back(std::move(record));
    }
  if (m->states() != nullptr)
    for (const auto* st : *m->states()) {
      StateRecord record;
      record.name = st->name() != nullptr ? st->name()->str() : "";
      record.kinds = st->kinds();
      record.shard = st->shard();
      record.offset = st->offset();
      record.size = st->size();
      record.xxh3 = st->xxh3();
      if (!inside_shard(r.shards, record.shard, record.offset, record.size))
        return corrupt(fmt::format("manifest places state '{}' outside its shard", record.name));
      if (record.size > kMaxStateBytes)
        return corrupt(fmt::format("manifest gives state '{}' {} bytes, more than the {} a state may hold", record.name,
                                   record.size, kMaxStateBytes));
      r.states.push_back(std::move(record));
    }
  if (m->metadata() != nullptr) r.metadata.assign(m->metadata()->begin(), m->metadata()->end());
  if (checksums_enforced() && xxh3(r.metadata.data(), r.metadata.size()) != m->metadata_xxh3())
    return corrupt("manifest metadata checksum mismatch");
  if (m->rank_metadata() != nullptr) {
    if (!sharded) return corrupt("manifest of one process holds metadata of other ranks");
    for (const auto* entry : *m->rank_metadata()) {
      RankMetadata own;
      own.rank = entry->rank();
      if (entry->bytes() != nullptr) own.bytes.assign(entry->bytes()->begin(), entry->bytes()->end());
      if (own.rank == 0 || own.rank >= r.world_size)
        return corrupt(fmt::format("manifest holds metadata of rank {} in a job of {} ranks", own.rank, r.world_size));
      if (!r.rank_metadata.empty() && own.rank <= r.rank_metadata.back().rank)
        return corrupt(fmt::format("manifest lists the metadata of rank {} out of order or twice", own.rank));
      r.rank_metadata.push_back(std::move(own));
    }
  }
  if (r.metadata_bytes() > kMaxMetadataBytes)
    return corrupt(fmt::format("manifest holds {} metadata bytes, more than the {} a checkpoint may hold",
                               r.metadata_bytes(), kMaxMetadataBytes));
  if (r.kind != FRUGAL_CKPT_HEARTBEAT && r.kind != FRUGAL_CKPT_FULL)
    return corrupt(fmt::format("manifest has unknown kind {}", r.kind));
  if (auto problem = inconsistent_records(r); !problem.empty()) return corrupt(std::move(problem));
  if (sharded)
    if (auto problem = inconsistent_chunks(r, scope); !problem.empty()) return corrupt(std::move(problem));
  out.status = FRUGAL_CKPT_VALID;
  return out;
}

// Manifest text is outside bytes (a crafted or damaged manifest can hold
// anything): json_text writes it as ASCII JSON, control characters escaped
// and invalid UTF-8 as U+FFFD, so the output never carries a raw terminal
// control sequence.
std::string manifest_to_json(const Manifest& m) {
  const auto kinds_of = [](uint32_t kinds) {
    json::Json out = json::Json::array();
    if ((kinds & FRUGAL_CKPT_HEARTBEAT) != 0) out.push_back("heartbeat");
    if ((kinds & FRUGAL_CKPT_FULL) != 0) out.push_back("full");
    return out;
  };
  json::Json shards = json::Json::array();
  for (const auto& s : m.shards) {
    json::Json shard = {{"key", s.key}, {"size", s.size}, {"xxh3", fmt::format("{:016x}", s.xxh3)}};
    if (m.world_size > 0) shard["rank"] = s.rank;
    shards.push_back(std::move(shard));
  }
  json::Json tensors = json::Json::array();
  for (const auto& t : m.tensors) {
    json::Json tensor = {{"name", t.name},     {"dtype", frugal_dtype_name(t.dtype)},
                         {"shape", t.shape},   {"shard", t.shard},
                         {"offset", t.offset}, {"bytes", t.bytes}};
    if (m.world_size > 0) {
      tensor["global_shape"] = t.global_shape;
      tensor["offsets"] = t.offsets;
      tensor["blocks"] = t.block_xxh3.size();
      if (t.rank_local) tensor["rank_local"] = true;
    }
    tensors.push_back(std::move(tensor));
  }
  json::Json states = json::Json::array();
  for (const auto& st : m.states)
    states.push_back({{"name", st.name},
                      {"kinds", kinds_of(st.kinds)},
                      {"size", st.size},
                      {"shard", st.shard},
                      {"offset", st.offset},
                      {"xxh3", fmt::format("{:016x}", st.xxh3)}});
  json::Json manifest = {{"format_version", m.format_version},
                         {"name", m.name},
                         {"kind", m.kind == FRUGAL_CKPT_FULL ? "full" : "heartbeat"},
                         {"step", m.step},
                         {"sequence", m.sequence},
                         {"generation", m.generation},
                         {"created_unix_ns", m.created_unix_ns},
                         {"emergency", m.emergency},
                         {"writer", m.writer},
                         {"metadata_bytes", m.metadata.size()},
                         {"shards", std::move(shards)},
                         {"tensors", std::move(tensors)},
                         {"states", std::move(states)}};
  if (m.world_size > 0) {
    manifest["world_size"] = m.world_size;
    manifest["block_bytes"] = m.block_bytes;
    // The ranks whose metadata is their own (the others saved rank 0's).
    json::Json own = json::Json::array();
    for (const auto& entry : m.rank_metadata) own.push_back({{"rank", entry.rank}, {"bytes", entry.bytes.size()}});
    manifest["rank_metadata"] = std::move(own);
  }
  return json::json_text(manifest) + "\n";
}

}  // namespace frugal::ckpt
