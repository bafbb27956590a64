// What the checkpoint engine asks of its store, as the gate_store test
// plugin records it:
// - every tensor shard handed over from a 4 KiB boundary of the snapshot
//   buffer, on save and on restore, whatever the tensors' sizes: that is
//   what lets store_fs move them with O_DIRECT (gate/misaligned);
// - a restore reads each shard once: it verifies the bytes it restores
//   rather than reading them in a verification pass first (gate/reads).
#include <algorithm>
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ckpt_fixture.hpp"
#include "test_helpers.hpp"
#include "test_seed.hpp"

using namespace frugal;
using namespace frugal::test;

namespace {

StorePtr open_gate_store(frugal_context* context) {
  host::check(frugal_context_load_plugin(context, plugin_path("gate_store").c_str()));
  frugal_store* store = nullptr;
  host::check(frugal_store_create(context, "mem", nullptr, &store));
  return StorePtr(store);
}

// A record the store keeps under gate/ ("" while it has none).
std::string record(frugal_store* store, const char* key) {
  uint64_t size = 0;
  if (frugal_error* e = frugal_store_size(store, key, &size)) {
    frugal_error_destroy(e);
    return "";
  }
  std::string text(size, '\0');
  host::check(frugal_store_read(store, key, 0, text.data(), size));
  return text;
}

// What the store recorded as off the 4 KiB boundary, one entry per line.
std::string misaligned(frugal_store* store) { return record(store, "gate/misaligned"); }

// Bytes read from each object since the record was last cleared.
std::map<std::string, uint64_t> bytes_read(frugal_store* store) {
  std::map<std::string, uint64_t> out;
  std::istringstream lines(record(store, "gate/reads"));
  std::string key;
  uint64_t length = 0;
  while (lines >> key >> length) out[key] += length;
  return out;
}

void clear_record(frugal_store* store, const char* key) {
  if (frugal_error* e = frugal_store_remove(store, key)) frugal_error_destroy(e);
}

// Every shard of checkpoint `name` under `prefix`, with its size.
std::map<std::string, uint64_t> shards_of(frugal_store* store, const std::string& prefix, const std::string& name) {
  std::map<std::string, uint64_t> shards;
  host::check(frugal_store_list(
      store, (prefix + name + "/shard-").c_str(),
      [](void* user, const char* key, uint64_t size) -> int32_t {
        (*static_cast<std::map<std::string, uint64_t>*>(user))[key] = size;
        return 0;
      },
      &shards));
  return shards;
}

}  // namespace

TEST_CASE("every tensor shard reaches the store from a 4 KiB boundary, on save and on restore") {
  const uint32_t seed = frugal_test::test_seed32();
  CAPTURE(seed);
  auto context = host::make_context();
  auto store = open_gate_store(context.get());

  // The recorder itself: a put from one byte past a boundary is noted.
  std::vector<unsigned char> bytes(3 * 4096);
  auto* off_boundary =
      reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(bytes.data()) + 4095) / 4096 * 4096 + 1);
  host::check(frugal_store_put(store.get(), "control/object", off_boundary, 4096));
  REQUIRE(misaligned(store.get()) == "put control/object\n");
  host::check(frugal_store_remove(store.get(), "gate/misaligned"));

  // Float tensors of odd lengths, so that packed back to back no shard
  // but the first would start on a boundary; small shards, so there are
  // several of them.
  std::vector<HostTensor> tensors;
  for (const int64_t n : {1001, 70001, 3, 50000, 9999, 123457}) tensors.emplace_back(std::vector<int64_t>{n});
  auto engine = make_engine(store.get(), {{"shard_bytes", "200000"}, {"prefix", "job"}});
  for (size_t i = 0; i < tensors.size(); ++i) {
    tensors[i].fill(seed + static_cast<uint32_t>(i));
    host::check(
        frugal_ckpt_register(engine.get(), ("t" + std::to_string(i)).c_str(), &tensors[i].view, FRUGAL_CKPT_ALL_KINDS));
  }
  const std::string name = save_and_wait(engine.get(), FRUGAL_CKPT_FULL, 7);
  std::vector<std::string> shards;
  host::check(frugal_store_list(
      store.get(), ("job/" + name + "/shard-").c_str(),
      [](void* user, const char* key, uint64_t) -> int32_t {
        static_cast<std::vector<std::string>*>(user)->push_back(key);
        return 0;
      },
      &shards));
  REQUIRE(shards.size() >= 3);
  CHECK(misaligned(store.get()) == "");

  const std::vector<std::vector<float>> saved = [&] {
    std::vector<std::vector<float>> out;
    for (auto& t : tensors) out.push_back(t.data);
    return out;
  }();
  for (auto& t : tensors) std::fill(t.data.begin(), t.data.end(), 0.0f);
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  host::check(frugal_ckpt_restore(engine.get(), nullptr, FRUGAL_CKPT_ALL_KINDS, nullptr, 0, nullptr, &info));
  CHECK(info.step == 7);
  for (size_t i = 0; i < tensors.size(); ++i) CHECK(tensors[i].data == saved[i]);
  CHECK(misaligned(store.get()) == "");
}

TEST_CASE("a restore reads each shard once, and a damaged newest checkpoint no more than once") {
  const uint32_t seed = frugal_test::test_seed32();
  // verified: into the snapshot buffer, checked, then copied into the
  // tensors; in_place: straight into the tensors, checked as they arrive.
  const std::string mode = GENERATE(std::string("verified"), std::string("in_place"));
  CAPTURE(seed, mode);
  auto context = host::make_context();
  auto store = open_gate_store(context.get());
  std::vector<HostTensor> tensors;
  for (const int64_t n : {40000, 70001, 123457}) tensors.emplace_back(std::vector<int64_t>{n});
  auto engine = make_engine(store.get(), {{"shard_bytes", "200000"}, {"prefix", "job"}, {"restore", mode}});
  for (size_t i = 0; i < tensors.size(); ++i) {
    tensors[i].fill(seed + static_cast<uint32_t>(i));
    host::check(
        frugal_ckpt_register(engine.get(), ("t" + std::to_string(i)).c_str(), &tensors[i].view, FRUGAL_CKPT_ALL_KINDS));
  }
  const std::string older = save_and_wait(engine.get(), FRUGAL_CKPT_FULL, 1);
  std::vector<std::vector<float>> older_values;
  for (const auto& t : tensors) older_values.push_back(t.data);
  const std::vector<float> saved = tensors[2].data;
  tensors[2].fill(seed + 99);
  const std::string newer = save_and_wait(engine.get(), FRUGAL_CKPT_FULL, 2);
  const std::vector<float> newer_values = tensors[2].data;
  const auto older_shards = shards_of(store.get(), "job/", older), newer_shards = shards_of(store.get(), "job/", newer);
  REQUIRE(newer_shards.size() >= 3);

  // The newest, valid: each of its shards read exactly once, no other.
  clear_record(store.get(), "gate/reads");
  for (auto& t : tensors) std::fill(t.data.begin(), t.data.end(), 0.0f);
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  host::check(frugal_ckpt_restore(engine.get(), nullptr, FRUGAL_CKPT_ALL_KINDS, nullptr, 0, nullptr, &info));
  CHECK(std::string(info.name) == newer);
  CHECK(tensors[2].data == newer_values);
  auto read = bytes_read(store.get());
  for (const auto& [key, size] : newer_shards) CHECK(read[key] == size);
  for (const auto& [key, size] : older_shards) CHECK(read.count(key) == 0);

  // The newest damaged in its last shard: at most one read of each of its
  // shards finds that out, then the older one is restored, each shard once.
  std::string damaged = newer_shards.rbegin()->first;
  uint64_t damaged_size = newer_shards.rbegin()->second;
  std::vector<uint8_t> bytes(damaged_size);
  host::check(frugal_store_read(store.get(), damaged.c_str(), 0, bytes.data(), bytes.size()));
  bytes[bytes.size() / 2] ^= 0x40;
  host::check(frugal_store_put(store.get(), damaged.c_str(), bytes.data(), bytes.size()));
  clear_record(store.get(), "gate/reads");
  for (auto& t : tensors) std::fill(t.data.begin(), t.data.end(), 0.0f);
  host::check(frugal_ckpt_restore(engine.get(), nullptr, FRUGAL_CKPT_ALL_KINDS, nullptr, 0, nullptr, &info));
  CHECK(std::string(info.name) == older);
  CHECK(tensors[2].data == saved);
  read = bytes_read(store.get());
  for (const auto& [key, size] : newer_shards) CHECK(read[key] <= size);
  CHECK(read[damaged] == damaged_size);
  for (const auto& [key, size] : older_shards) CHECK(read[key] == size);

  // Every tensor holds the older checkpoint's bytes, whatever the damaged
  // one wrote first.
  for (size_t i = 0; i < tensors.size(); ++i) CHECK(tensors[i].data == older_values[i]);

  // Asked for by name, the damaged checkpoint is refused; verified leaves
  // the tensors as they were, in place says what it may have written.
  for (auto& t : tensors) std::fill(t.data.begin(), t.data.end(), 7.0f);
  const auto refused =
      outcome(frugal_ckpt_restore(engine.get(), newer.c_str(), FRUGAL_CKPT_ALL_KINDS, nullptr, 0, nullptr, nullptr));
  CHECK(refused.code == FRUGAL_ERR_DATA_CORRUPTED);
  CHECK_THAT(refused.message, Catch::Contains("fails its checksum"));
  if (mode == "verified") {
    for (const auto& t : tensors) CHECK(std::all_of(t.data.begin(), t.data.end(), [](float x) { return x == 7.0f; }));
  } else {
    CHECK_THAT(refused.message, Catch::Contains("restored in place: registered tensors may hold"));
  }
}

TEST_CASE("the engine's restore option takes verified or in_place, and names itself otherwise") {
  auto context = host::make_context();
  auto store = open_gate_store(context.get());
  auto options = host::make_options();
  host::check(frugal_options_set_string(options.get(), "restore", "fast"));
  frugal_ckpt_engine* engine = nullptr;
  const auto r = outcome(frugal_ckpt_engine_create(store.get(), options.get(), &engine));
  CHECK(engine == nullptr);
  CHECK(r.code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK_THAT(r.message, Catch::Contains("restore must be 'verified' or 'in_place', got 'fast'"));
}
