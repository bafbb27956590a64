// Two writers on one prefix: the spot scenario, where the restarted job
// starts while the preempted one (a zombie) is still persisting its last
// save. The gate_store plugin (gate_store_plugin.cpp) holds the zombie's
// persist in flight while the new job claims the prefix and commits; then
// it lets the zombie go on and the test checks what each one left.
#include <catch2/catch.hpp>

#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "ckpt_fixture.hpp"
#include "test_helpers.hpp"

using namespace frugal;
using namespace frugal::test;
using crash::State;

namespace {

const std::vector<std::pair<std::string, std::string>> kJobOptions = {
    {"prefix", "job"},
    {"shard_bytes", std::to_string(State::kShardBytes)},
    {"keep_heartbeats", "3"},
    {"keep_full", "2"}};

StorePtr open_gate_store(frugal_context* context) {
  host::check(frugal_context_load_plugin(context, plugin_path("gate_store").c_str()));
  frugal_store* store = nullptr;
  host::check(frugal_store_create(context, "mem", nullptr, &store));
  return StorePtr(store);
}

void put_text(frugal_store* store, const std::string& key, const std::string& text) {
  host::check(frugal_store_put(store, key.c_str(), text.data(), text.size()));
}

std::vector<std::string> keys_under(frugal_store* store, const std::string& prefix) {
  std::vector<std::string> keys;
  host::check(frugal_store_list(
      store, prefix.c_str(),
      [](void* user, const char* key, uint64_t) -> int32_t {
        static_cast<std::vector<std::string>*>(user)->push_back(key);
        return 0;
      },
      &keys));
  return keys;
}

// The key the gate holds, once a put reached it (at most 10 s).
std::string held_key(frugal_store* store) {
  for (int i = 0; i < 1000; ++i) {
    uint64_t size = 0;
    if (frugal_error* e = frugal_store_size(store, "gate/waiting", &size); e == nullptr) {
      std::string key(size, '\0');
      host::check(frugal_store_read(store, "gate/waiting", 0, key.data(), size));
      return key;
    } else {
      frugal_error_destroy(e);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  FAIL("the zombie's persist never reached the gate");
  return {};
}

std::string save_step(frugal_ckpt_engine* engine, State& state, int32_t kind, uint64_t step) {
  state.fill(step);
  return save_and_wait(engine, kind, step, crash::step_metadata(step));
}

std::vector<std::string> names_of(const std::vector<frugal_ckpt_info>& infos) {
  std::vector<std::string> names;
  for (const auto& info : infos) names.push_back(info.name);
  return names;
}

}  // namespace

TEST_CASE("a zombie's late save is refused and reported, and the restarted job's commits all survive") {
  CapturingContext log;
  auto store = open_gate_store(log.context.get());
  State old_state, new_state;  // outlive the engines
  auto old_job = make_engine(store.get(), kJobOptions);
  host::check(old_state.register_all(old_job.get()));
  const auto full10 = save_step(old_job.get(), old_state, FRUGAL_CKPT_FULL, 10);
  const auto hb11 = save_step(old_job.get(), old_state, FRUGAL_CKPT_HEARTBEAT, 11);
  const auto hb12 = save_step(old_job.get(), old_state, FRUGAL_CKPT_HEARTBEAT, 12);

  // The zombie's last save, held by the gate at its first put (before it
  // wrote anything) or at its first shard (before its commit).
  std::string hold;
  bool emergency = false;
  SECTION("held before it wrote anything, an async save reported by wait") { hold = "*"; }
  SECTION("held between its shards and its commit, an emergency save") {
    hold = "/shard-";
    emergency = true;
  }
  put_text(store.get(), "gate/hold", hold);
  old_state.fill(13);
  const std::string meta13 = crash::step_metadata(13);
  const frugal_ckpt_save_args args = save_args(FRUGAL_CKPT_HEARTBEAT, 13, meta13);
  std::future<Outcome> zombie_outcome;
  frugal_ckpt_emergency_result emergency_result{};
  emergency_result.struct_size = sizeof(emergency_result);
  if (emergency) {
    zombie_outcome = std::async(std::launch::async, [&] {
      return outcome(frugal_ckpt_emergency_save(old_job.get(), &args, 60.0, &emergency_result));
    });
  } else {
    host::check(frugal_ckpt_save(old_job.get(), &args, nullptr));
  }
  const std::string held = held_key(store.get());
  put_text(store.get(), "gate/hold", held);  // from now on only the zombie's put waits

  // The restarted job: starts at once, resumes from the newest commit, saves.
  auto new_job = make_engine(store.get(), kJobOptions);
  host::check(new_state.register_all(new_job.get()));
  CHECK(restore_exact(new_job.get(), new_state, nullptr).step == 12);
  const auto hb20 = save_step(new_job.get(), new_state, FRUGAL_CKPT_HEARTBEAT, 20);
  const auto full21 = save_step(new_job.get(), new_state, FRUGAL_CKPT_FULL, 21);
  const auto hb22 = save_step(new_job.get(), new_state, FRUGAL_CKPT_HEARTBEAT, 22);

  // The zombie goes on: its save is refused, naming both generations.
  host::check(frugal_store_remove(store.get(), "gate/hold"));
  const Outcome refused = emergency ? zombie_outcome.get() : outcome(frugal_ckpt_wait(old_job.get(), nullptr));
  INFO(refused.message);
  CHECK(refused.code == FRUGAL_ERR_FAILED_PRECONDITION);
  CHECK_THAT(refused.message, Catch::Contains("hb-000000000013-") && Catch::Contains("was not saved") &&
                                  Catch::Contains("writer generation 1") && Catch::Contains("generation 2 claimed it"));
  // Fenced for good: no save, no removal.
  const auto again = outcome(frugal_ckpt_save(old_job.get(), &args, nullptr));
  CHECK(again.code == FRUGAL_ERR_FAILED_PRECONDITION);
  CHECK(outcome(frugal_ckpt_gc(old_job.get(), nullptr)).code == FRUGAL_ERR_FAILED_PRECONDITION);

  // Nothing of the refused save is left, and every commit is listed, valid:
  // the new job's three, and the old job's within the new job's retention
  // (3 heartbeats, 2 full: hb11 went).
  for (const auto& key : keys_under(store.get(), "job/hb-000000000013-")) FAIL_CHECK("left behind: " << key);
  const auto listed = list_all(new_job.get(), true);
  CHECK(names_of(listed) == std::vector<std::string>{hb22, full21, hb20, hb12, full10});
  for (const auto& info : listed) CHECK(info.status == FRUGAL_CKPT_VALID);
  CHECK(names_of(list_all(old_job.get(), true)) == names_of(listed));  // the zombie sees the same
  uint32_t removed = 99;
  host::check(frugal_ckpt_gc(new_job.get(), &removed));
  CHECK(removed == 0);
  CHECK(std::string(restore_exact(new_job.get(), new_state, nullptr).name) == hb22);
  (void)hb11;
}

TEST_CASE("two checkpoints sharing a sequence are both listed, found and kept") {
  // Writers from before fencing numbered their saves independently; a
  // checkpoint copied in from another prefix may share a number too.
  CapturingContext log;
  auto store = open_gate_store(log.context.get());
  State state;
  auto a = make_engine(store.get(), {{"prefix", "a"}});
  auto b = make_engine(store.get(), {{"prefix", "b"}});
  host::check(state.register_all(a.get()));
  host::check(state.register_all(b.get()));
  const auto full = save_step(a.get(), state, FRUGAL_CKPT_FULL, 10);
  const auto heartbeat = save_step(b.get(), state, FRUGAL_CKPT_HEARTBEAT, 20);
  for (const auto& key : keys_under(store.get(), "b/" + heartbeat + "/")) {
    uint64_t size = 0;
    host::check(frugal_store_size(store.get(), key.c_str(), &size));
    std::string bytes(size, '\0');
    host::check(frugal_store_read(store.get(), key.c_str(), 0, bytes.data(), size));
    put_text(store.get(), "a/" + key.substr(2), bytes);
  }
  const auto listed = list_all(a.get(), true);
  REQUIRE(listed.size() == 2);
  CHECK(listed[0].sequence == listed[1].sequence);
  CHECK(names_of(listed) == std::vector<std::string>{heartbeat, full});  // equal sequences: by name
  for (const auto& info : listed) CHECK(info.status == FRUGAL_CKPT_VALID);
  frugal_ckpt_info info{};
  info.struct_size = sizeof(info);
  host::check(frugal_ckpt_latest(a.get(), FRUGAL_CKPT_HEARTBEAT, &info));
  CHECK(std::string(info.name) == heartbeat);
  host::check(frugal_ckpt_latest(a.get(), FRUGAL_CKPT_FULL, &info));
  CHECK(std::string(info.name) == full);
  uint32_t removed = 99;
  host::check(frugal_ckpt_gc(a.get(), &removed));
  CHECK(removed == 0);
}

TEST_CASE("an engine that only reads, restores and collects claims nothing and fences no writer") {
  CapturingContext log;
  auto store = open_gate_store(log.context.get());
  State state, reader_state;
  auto writer = make_engine(store.get(), kJobOptions);
  host::check(state.register_all(writer.get()));
  save_step(writer.get(), state, FRUGAL_CKPT_FULL, 1);
  const auto claims = keys_under(store.get(), "job/writer-claims/");
  REQUIRE(claims.size() == 1);

  auto reader = make_engine(store.get(), kJobOptions);  // e.g. `frugal ckpt ls` on a live job
  host::check(reader_state.register_all(reader.get()));
  CHECK(list_all(reader.get(), true).size() == 1);
  restore_exact(reader.get(), reader_state, nullptr);
  host::check(frugal_ckpt_gc(reader.get(), nullptr));
  CHECK(keys_under(store.get(), "job/writer-claims/") == claims);

  const auto next = save_step(writer.get(), state, FRUGAL_CKPT_HEARTBEAT, 2);  // still the writer
  CHECK(verify_one(reader.get(), next).status == FRUGAL_CKPT_VALID);
}
