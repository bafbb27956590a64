// The checkpoint engine hands the store every tensor shard from a 4 KiB
// boundary of its snapshot buffer, on save and on restore, whatever the
// tensors' sizes: that is what lets store_fs move them with O_DIRECT. The
// gate_store test plugin records each put and whole-object read whose
// memory is off that boundary (gate/misaligned).
#include <catch2/catch.hpp>

#include <cstdint>
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

// What the store recorded as off the 4 KiB boundary, one entry per line.
std::string misaligned(frugal_store* store) {
  uint64_t size = 0;
  if (frugal_error* e = frugal_store_size(store, "gate/misaligned", &size)) {
    frugal_error_destroy(e);
    return "";
  }
  std::string text(size, '\0');
  host::check(frugal_store_read(store, "gate/misaligned", 0, text.data(), size));
  return text;
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
