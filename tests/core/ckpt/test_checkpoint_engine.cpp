// The checkpoint engine through the C API on the store_fs backend: round
// trips, kinds, ordering, retention, restore guards, emergency saves.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <signal.h>  // sigaction (POSIX)
#include <csignal>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <string>

#include "ckpt_fixture.hpp"
#include "test_helpers.hpp"

using namespace frugal;
using namespace frugal::test;

namespace {

struct Rig {
  ScratchDir dir;
  host::ContextPtr context = host::make_context();
  StorePtr store;
  EnginePtr engine;
  HostTensor weights{{64, 33}};
  HostTensor optimizer{{2, 64, 33}};
  HostTensor scalar{{}};

  explicit Rig(const std::vector<std::pair<std::string, std::string>>& options = {}) {
    store = open_fs_store(context.get(), dir.path.string());
    engine = make_engine(store.get(), options);
    host::check(frugal_ckpt_register(engine.get(), "model/weights", &weights.view, 0));
    host::check(frugal_ckpt_register(engine.get(), "optim/state", &optimizer.view, FRUGAL_CKPT_FULL));
    host::check(frugal_ckpt_register(engine.get(), "rng", &scalar.view, 0));
  }
};

frugal_ckpt_info restore(frugal_ckpt_engine* engine, const char* name, uint32_t kinds, std::string* metadata) {
  std::string buffer(1024, '\0');
  uint64_t size = 0;
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  host::check(frugal_ckpt_restore(engine, name, kinds, buffer.data(), buffer.size(), &size, &info));
  if (metadata != nullptr) *metadata = buffer.substr(0, size);
  return info;
}

}  // namespace

TEST_CASE("a full checkpoint restores every registered byte and the host metadata") {
  Rig rig;
  rig.weights.fill(1);
  rig.optimizer.fill(2);
  rig.scalar.data[0] = 42.5f;
  const auto saved_weights = rig.weights.data, saved_optimizer = rig.optimizer.data;
  const std::string name = save_and_wait(rig.engine.get(), FRUGAL_CKPT_FULL, 1200, "cursor=77;seed=9");
  CHECK(name.rfind("full-000000001200-", 0) == 0);

  rig.weights.fill(3);
  rig.optimizer.fill(4);
  rig.scalar.data[0] = 0;
  std::string metadata;
  const auto info = restore(rig.engine.get(), nullptr, FRUGAL_CKPT_ALL_KINDS, &metadata);
  CHECK(std::string(info.name) == name);
  CHECK(info.status == FRUGAL_CKPT_VALID);
  CHECK(info.kind == FRUGAL_CKPT_FULL);
  CHECK(info.step == 1200);
  CHECK(info.tensor_count == 3);
  CHECK(std::string(info.full_source) == name);  // a full checkpoint supplies its own full-only state
  CHECK(info.not_restored_count == 0);
  CHECK(info.bytes == (64 * 33 + 2 * 64 * 33 + 1) * 4 + metadata.size());
  CHECK(metadata == "cursor=77;seed=9");
  CHECK(rig.weights.data == saved_weights);
  CHECK(rig.optimizer.data == saved_optimizer);
  CHECK(rig.scalar.data[0] == 42.5f);
}

TEST_CASE("a heartbeat carries only the tensors registered for heartbeats") {
  Rig rig;
  rig.weights.fill(5);
  rig.optimizer.fill(6);
  const auto saved_weights = rig.weights.data;
  save_and_wait(rig.engine.get(), FRUGAL_CKPT_HEARTBEAT, 10);
  rig.weights.fill(7);
  rig.optimizer.fill(8);
  const auto optimizer_now = rig.optimizer.data;
  const auto info = restore(rig.engine.get(), nullptr, FRUGAL_CKPT_HEARTBEAT, nullptr);
  CHECK(info.tensor_count == 2);
  CHECK(rig.weights.data == saved_weights);
  CHECK(rig.optimizer.data == optimizer_now);  // no full checkpoint to take it from: untouched...
  CHECK(std::string(info.full_source).empty());
  CHECK(info.not_restored_count == 1);  // ...and reported by name
  CHECK(not_restored(rig.engine.get(), info) == std::vector<std::string>{"optim/state"});
  char tiny[4];
  CHECK(outcome(frugal_ckpt_restore_report(rig.engine.get(), 0, tiny, sizeof(tiny))).code == FRUGAL_ERR_OUT_OF_RANGE);
}

TEST_CASE("a heartbeat restores full-only state from the newest full checkpoint written before it") {
  Rig rig;
  rig.weights.fill(1);
  rig.optimizer.fill(2);
  const auto saved_optimizer = rig.optimizer.data;
  const auto full = save_and_wait(rig.engine.get(), FRUGAL_CKPT_FULL, 100, "full");
  rig.weights.fill(3);
  rig.optimizer.fill(4);  // never saved: heartbeats leave it out
  const auto saved_weights = rig.weights.data;
  const auto heartbeat = save_and_wait(rig.engine.get(), FRUGAL_CKPT_HEARTBEAT, 110, "heartbeat");

  for (const char* which : {static_cast<const char*>(nullptr), heartbeat.c_str()}) {
    INFO((which == nullptr ? "newest" : which));
    rig.weights.fill(5);
    rig.optimizer.fill(6);
    std::string metadata;
    const auto info = restore(rig.engine.get(), which, FRUGAL_CKPT_ALL_KINDS, &metadata);
    CHECK(std::string(info.name) == heartbeat);
    CHECK(metadata == "heartbeat");
    CHECK(rig.weights.data == saved_weights);
    CHECK(rig.optimizer.data == saved_optimizer);  // byte-exact, from the full checkpoint
    CHECK(std::string(info.full_source) == full);
    CHECK(info.not_restored_count == 0);
    CHECK(not_restored(rig.engine.get(), info).empty());
  }
}

TEST_CASE("a full checkpoint written after the heartbeat never supplies its full-only state") {
  Rig rig;
  rig.optimizer.fill(1);
  const auto early = save_and_wait(rig.engine.get(), FRUGAL_CKPT_HEARTBEAT, 10);  // no full before it
  rig.optimizer.fill(2);
  const auto saved_optimizer = rig.optimizer.data;
  const auto full = save_and_wait(rig.engine.get(), FRUGAL_CKPT_FULL, 20);
  const auto heartbeat = save_and_wait(rig.engine.get(), FRUGAL_CKPT_HEARTBEAT, 30);
  rig.optimizer.fill(3);
  save_and_wait(rig.engine.get(), FRUGAL_CKPT_FULL, 40);  // newer than both heartbeats

  rig.optimizer.fill(4);
  auto info = restore(rig.engine.get(), heartbeat.c_str(), 0, nullptr);
  CHECK(std::string(info.full_source) == full);
  CHECK(rig.optimizer.data == saved_optimizer);

  rig.optimizer.fill(4);
  const auto untouched = rig.optimizer.data;
  info = restore(rig.engine.get(), early.c_str(), 0, nullptr);
  CHECK(std::string(info.full_source).empty());
  CHECK(rig.optimizer.data == untouched);
  CHECK(not_restored(rig.engine.get(), info) == std::vector<std::string>{"optim/state"});
}

TEST_CASE("a corrupt full checkpoint is skipped for an older valid one, and a mismatch is reported") {
  Rig rig;
  rig.optimizer.fill(1);
  const auto saved_optimizer = rig.optimizer.data;
  const auto older = save_and_wait(rig.engine.get(), FRUGAL_CKPT_FULL, 10);
  rig.optimizer.fill(2);
  const auto newer = save_and_wait(rig.engine.get(), FRUGAL_CKPT_FULL, 20);
  rig.weights.fill(3);
  const auto saved_weights = rig.weights.data;
  const auto heartbeat = save_and_wait(rig.engine.get(), FRUGAL_CKPT_HEARTBEAT, 30);
  std::filesystem::resize_file(rig.dir.path / newer / "shard-00000", 8);

  rig.optimizer.fill(4);
  auto info = restore(rig.engine.get(), nullptr, 0, nullptr);
  CHECK(std::string(info.name) == heartbeat);
  CHECK(std::string(info.full_source) == older);
  CHECK(rig.optimizer.data == saved_optimizer);

  SECTION("the supplying full checkpoint holds another shape") {
    auto other_engine = make_engine(rig.store.get());
    HostTensor weights({64, 33}), optimizer({7}), scalar({});
    host::check(frugal_ckpt_register(other_engine.get(), "model/weights", &weights.view, 0));
    host::check(frugal_ckpt_register(other_engine.get(), "optim/state", &optimizer.view, FRUGAL_CKPT_FULL));
    host::check(frugal_ckpt_register(other_engine.get(), "rng", &scalar.view, 0));
    optimizer.fill(5);
    const auto untouched = optimizer.data;
    info = restore(other_engine.get(), nullptr, 0, nullptr);
    CHECK(std::string(info.name) == heartbeat);  // the heartbeat itself is still restored
    CHECK(weights.data == saved_weights);
    CHECK(optimizer.data == untouched);
    CHECK(std::string(info.full_source).empty());
    CHECK(not_restored(other_engine.get(), info) == std::vector<std::string>{"optim/state"});
  }
  SECTION("no full checkpoint verifies") {
    std::filesystem::resize_file(rig.dir.path / older / "shard-00000", 8);
    rig.optimizer.fill(5);
    const auto untouched = rig.optimizer.data;
    rig.weights.fill(6);
    info = restore(rig.engine.get(), nullptr, 0, nullptr);
    CHECK(std::string(info.name) == heartbeat);
    CHECK(rig.weights.data == saved_weights);
    CHECK(rig.optimizer.data == untouched);
    CHECK(std::string(info.full_source).empty());
    CHECK(not_restored(rig.engine.get(), info) == std::vector<std::string>{"optim/state"});
  }
}

TEST_CASE("a host with a frugal_ckpt_info short of the restore fields sees nothing written past its struct_size") {
  Rig rig;
  const auto full = save_and_wait(rig.engine.get(), FRUGAL_CKPT_FULL, 1);
  const auto heartbeat = save_and_wait(rig.engine.get(), FRUGAL_CKPT_HEARTBEAT, 2);
  constexpr size_t kShortSize = offsetof(frugal_ckpt_info, full_source);  // a caller without the restore fields
  STATIC_REQUIRE(kShortSize == 380);
  unsigned char raw[sizeof(frugal_ckpt_info) + 16];
  std::memset(raw, 0xCC, sizeof(raw));
  const size_t struct_size = kShortSize;
  std::memcpy(raw, &struct_size, sizeof(struct_size));
  host::check(
      frugal_ckpt_restore(rig.engine.get(), nullptr, 0, nullptr, 0, nullptr, reinterpret_cast<frugal_ckpt_info*>(raw)));
  frugal_ckpt_info seen{};
  std::memcpy(&seen, raw, kShortSize);
  CHECK(std::string(seen.name) == heartbeat);
  CHECK(seen.struct_size == kShortSize);
  for (size_t i = kShortSize; i < sizeof(raw); ++i) {
    INFO("byte " << i);
    REQUIRE(raw[i] == 0xCC);
  }
  (void)full;
}

TEST_CASE("newest means last written, latest filters by kind, and a new engine continues the order") {
  Rig rig;
  const auto a = save_and_wait(rig.engine.get(), FRUGAL_CKPT_FULL, 500);
  const auto b = save_and_wait(rig.engine.get(), FRUGAL_CKPT_HEARTBEAT, 520);
  const auto c = save_and_wait(rig.engine.get(), FRUGAL_CKPT_HEARTBEAT, 100);  // after a rollback: lower step, newer
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  host::check(frugal_ckpt_latest(rig.engine.get(), FRUGAL_CKPT_ALL_KINDS, &info));
  CHECK(std::string(info.name) == c);
  host::check(frugal_ckpt_latest(rig.engine.get(), FRUGAL_CKPT_FULL, &info));
  CHECK(std::string(info.name) == a);

  auto second = make_engine(rig.store.get());
  const auto d = save_and_wait(second.get(), FRUGAL_CKPT_FULL, 1);
  const auto listed = list_all(second.get(), true);
  REQUIRE(listed.size() == 4);  // within the default retention (2 heartbeats, 2 full)
  CHECK(std::string(listed[0].name) == d);
  CHECK(std::string(listed[1].name) == c);
  CHECK(std::string(listed[2].name) == b);
  CHECK(std::string(listed[3].name) == a);
  CHECK(listed[0].sequence == listed[1].sequence + 1);
}

TEST_CASE("retention keeps exactly the newest N heartbeats and M full checkpoints") {
  Rig rig({{"keep_heartbeats", "2"}, {"keep_full", "1"}});
  std::vector<std::string> heartbeats, fulls;
  for (int i = 0; i < 9; ++i) {
    if (i % 3 == 2)
      fulls.push_back(save_and_wait(rig.engine.get(), FRUGAL_CKPT_FULL, static_cast<uint64_t>(i)));
    else
      heartbeats.push_back(save_and_wait(rig.engine.get(), FRUGAL_CKPT_HEARTBEAT, static_cast<uint64_t>(i)));
  }
  std::vector<std::string> names;
  for (const auto& info : list_all(rig.engine.get(), true)) {
    CHECK(info.status == FRUGAL_CKPT_VALID);
    names.push_back(info.name);
  }
  CHECK(names == std::vector<std::string>{fulls[2], heartbeats[5], heartbeats[4]});
}

TEST_CASE("restore refuses mismatched state before writing anything") {
  Rig rig;
  rig.weights.fill(1);
  save_and_wait(rig.engine.get(), FRUGAL_CKPT_FULL, 3, std::string(100, 'm'));
  rig.weights.fill(2);
  const auto before = rig.weights.data;

  // Metadata buffer too small: OUT_OF_RANGE, size reported, nothing restored.
  std::string small(10, '\0');
  uint64_t size = 0;
  auto result = outcome(frugal_ckpt_restore(rig.engine.get(), nullptr, 0, small.data(), small.size(), &size, nullptr));
  CHECK(result.code == FRUGAL_ERR_OUT_OF_RANGE);
  CHECK(size == 100);
  CHECK(rig.weights.data == before);

  // A tensor saved but no longer registered.
  std::string big(200, '\0');
  host::check(frugal_ckpt_unregister(rig.engine.get(), "rng"));
  result = outcome(frugal_ckpt_restore(rig.engine.get(), nullptr, 0, big.data(), big.size(), nullptr, nullptr));
  CHECK(result.code == FRUGAL_ERR_FAILED_PRECONDITION);
  CHECK(result.message.find("'rng', which is not registered") != std::string::npos);

  // Same name, another shape.
  HostTensor other({5});
  host::check(frugal_ckpt_register(rig.engine.get(), "rng", &other.view, 0));
  result = outcome(frugal_ckpt_restore(rig.engine.get(), nullptr, 0, big.data(), big.size(), nullptr, nullptr));
  CHECK(result.code == FRUGAL_ERR_FAILED_PRECONDITION);
  CHECK(result.message.find("saved as float32 [] but is registered as float32 [5]") != std::string::npos);
  CHECK(rig.weights.data == before);
}

TEST_CASE("registration and options are checked") {
  Rig rig;
  HostTensor t({4});
  CHECK(outcome(frugal_ckpt_register(rig.engine.get(), "model/weights", &t.view, 0)).code == FRUGAL_ERR_ALREADY_EXISTS);
  CHECK(outcome(frugal_ckpt_register(rig.engine.get(), "bad name", &t.view, 0)).code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(outcome(frugal_ckpt_register(rig.engine.get(), "x", &t.view, 8)).code == FRUGAL_ERR_INVALID_ARGUMENT);
  int64_t strides[] = {2};
  HostTensor strided({4});
  strided.view.strides = strides;
  CHECK(outcome(frugal_ckpt_register(rig.engine.get(), "s", &strided.view, 0)).code == FRUGAL_ERR_UNSUPPORTED);
  CHECK(outcome(frugal_ckpt_unregister(rig.engine.get(), "nope")).code == FRUGAL_ERR_NOT_FOUND);

  auto opts = host::make_options();
  host::check(frugal_options_set_int(opts.get(), "keep_ful", 3));
  frugal_ckpt_engine* engine = nullptr;
  auto bad = outcome(frugal_ckpt_engine_create(rig.store.get(), opts.get(), &engine));
  CHECK(bad.code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(bad.message.find("unknown option 'keep_ful'") != std::string::npos);
  frugal_ckpt_save_args args{};
  args.struct_size = sizeof(args);
  args.kind = 7;
  CHECK(outcome(frugal_ckpt_save(rig.engine.get(), &args, nullptr)).code == FRUGAL_ERR_INVALID_ARGUMENT);
}

TEST_CASE("an emergency heartbeat reports that it committed before the deadline") {
  Rig rig;
  frugal_ckpt_save_args args{};
  args.struct_size = sizeof(args);
  args.kind = FRUGAL_CKPT_FULL;  // ignored: emergencies are heartbeats
  args.step = 77;
  frugal_ckpt_emergency_result result{};
  result.struct_size = sizeof(result);
  host::check(frugal_ckpt_emergency_save(rig.engine.get(), &args, 30.0, &result));
  CHECK(result.committed == 1);
  CHECK(result.seconds < 30.0);
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  host::check(frugal_ckpt_verify(rig.engine.get(), result.name, &info));
  CHECK(info.status == FRUGAL_CKPT_VALID);
  CHECK(info.kind == FRUGAL_CKPT_HEARTBEAT);
  CHECK(info.emergency == 1);
  CHECK(info.step == 77);
}

TEST_CASE("the SIGTERM helper only records the notice") {
  frugal_preemption_clear();
  struct sigaction before {};
  REQUIRE(sigaction(SIGTERM, nullptr, &before) == 0);
  host::check(frugal_preemption_install_sigterm());
  struct sigaction installed {};
  REQUIRE(sigaction(SIGTERM, nullptr, &installed) == 0);
  // SA_ONSTACK: runtimes with alternate signal stacks (Go) require it.
  CHECK((installed.sa_flags & SA_ONSTACK) != 0);
  CHECK((installed.sa_flags & SA_RESTART) != 0);
  CHECK(frugal_preemption_pending() == 0);
  REQUIRE(std::raise(SIGTERM) == 0);  // would kill the process without the helper
  CHECK(frugal_preemption_pending() == 1);
  frugal_preemption_clear();
  CHECK(frugal_preemption_pending() == 0);
  frugal_preemption_notify();
  CHECK(frugal_preemption_pending() == 1);
  frugal_preemption_clear();
  frugal_preemption_uninstall_sigterm();
  struct sigaction after {};
  REQUIRE(sigaction(SIGTERM, nullptr, &after) == 0);
  CHECK(after.sa_handler == before.sa_handler);  // the earlier disposition is back
  frugal_preemption_uninstall_sigterm();         // without an install: nothing happens
  REQUIRE(sigaction(SIGTERM, nullptr, &after) == 0);
  CHECK(after.sa_handler == before.sa_handler);
}

TEST_CASE("inspect prints the manifest as JSON") {
  Rig rig;
  const auto name = save_and_wait(rig.engine.get(), FRUGAL_CKPT_FULL, 9, "abc");
  char* json = nullptr;
  host::check(frugal_ckpt_inspect_json(rig.engine.get(), name.c_str(), &json));
  const std::string text = json;
  frugal_string_free(json);
  CHECK(text.find("\"name\": \"" + name + "\"") != std::string::npos);
  CHECK(text.find("\"kind\": \"full\"") != std::string::npos);
  const auto manifest = nlohmann::json::parse(text);
  const auto& optim = manifest.at("tensors").at(1);
  CHECK(optim.at("name") == "optim/state");
  CHECK(optim.at("dtype") == "float32");
  CHECK(optim.at("shape") == nlohmann::json::array({2, 64, 33}));
  CHECK(text.find("\"key\": \"shard-00000\"") != std::string::npos);
  CHECK(text.find("\"metadata_bytes\": 3") != std::string::npos);
}

TEST_CASE("a failed restore writes none of its out-params; only OUT_OF_RANGE reports the metadata size") {
  Rig rig;
  const auto name = save_and_wait(rig.engine.get(), FRUGAL_CKPT_FULL, 3, std::string(100, 'm'));
  const uint64_t kUntouched = 0xDEADBEEFu;
  std::string buffer(200, '\0');
  // Restores with a sentinel in both out-params and returns the error code;
  // any failure must leave both sentinels in place.
  auto failed_restore = [&](const char* which, void* metadata, size_t capacity) {
    uint64_t size = kUntouched;
    frugal_ckpt_info info{};
    info.struct_size = sizeof(info);
    info.step = kUntouched;
    const auto result = outcome(frugal_ckpt_restore(rig.engine.get(), which, 0, metadata, capacity, &size, &info));
    INFO(result.message);
    CHECK(result.code != FRUGAL_OK);
    CHECK(info.step == kUntouched);
    if (result.code == FRUGAL_ERR_OUT_OF_RANGE)
      CHECK(size == 100);
    else
      CHECK(size == kUntouched);
    return result.code;
  };

  CHECK(failed_restore(nullptr, nullptr, 10) == FRUGAL_ERR_INVALID_ARGUMENT);  // NULL buffer, capacity 10
  CHECK(failed_restore("not-a-checkpoint", buffer.data(), 200) == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(failed_restore("full-000000000009-00000099", buffer.data(), 200) == FRUGAL_ERR_NOT_FOUND);
  CHECK(failed_restore(nullptr, buffer.data(), 10) == FRUGAL_ERR_OUT_OF_RANGE);  // too small: the size is told

  // A tensor saved but not registered, then another shape (the case that wrote the size).
  host::check(frugal_ckpt_unregister(rig.engine.get(), "rng"));
  CHECK(failed_restore(nullptr, buffer.data(), 200) == FRUGAL_ERR_FAILED_PRECONDITION);
  HostTensor other({5});
  host::check(frugal_ckpt_register(rig.engine.get(), "rng", &other.view, 0));
  CHECK(failed_restore(name.c_str(), buffer.data(), 200) == FRUGAL_ERR_FAILED_PRECONDITION);

  // An info whose struct_size is not set: refused, and the size stays unwritten too.
  {
    uint64_t size = kUntouched;
    frugal_ckpt_info info{};
    host::check(frugal_ckpt_unregister(rig.engine.get(), "rng"));
    host::check(frugal_ckpt_register(rig.engine.get(), "rng", &rig.scalar.view, 0));
    const auto result =
        outcome(frugal_ckpt_restore(rig.engine.get(), name.c_str(), 0, buffer.data(), 200, &size, &info));
    CHECK(result.code == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK(size == kUntouched);
  }

  // A damaged shard: refused by name, and nothing valid left for "newest".
  std::filesystem::resize_file(rig.dir.path / name / "shard-00000", 8);
  CHECK(failed_restore(name.c_str(), buffer.data(), 200) == FRUGAL_ERR_DATA_CORRUPTED);
  CHECK(failed_restore(nullptr, buffer.data(), 200) == FRUGAL_ERR_NOT_FOUND);
}
