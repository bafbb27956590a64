// sdk/policy_adapter.hpp's slots around a strategy, called as a core
// would call them: errors instead of exceptions, a proposal from an older
// (smaller) core written only up to its struct_size, a telemetry struct too
// small refused, the reason kept alive until the next call, and the
// export_state size protocol.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "frugal/sdk/policy_adapter.hpp"
#include "plugin/checkpoint_cadence.hpp"
#include "policy_test_support.hpp"
#include "test_helpers.hpp"

using namespace frugal;
using namespace frugal::test;
using frugal::policy::plugin::CadenceConfig;
using frugal::policy::plugin::CheckpointCadence;

namespace {

using Adapter = sdk::PolicyAdapter<CheckpointCadence>;

// What the slots need of a host once the instance exists: error_create.
struct Slots {
  frugal_host_api host{};
  Adapter::Instance* instance;

  explicit Slots(const CadenceConfig& config) {
    host.struct_size = sizeof(host);
    host.error_create = &frugal_error_create;
    instance = new Adapter::Instance{&host, CheckpointCadence(config)};
  }
  ~Slots() { Adapter::vtable.destroy(instance); }
  Slots(const Slots&) = delete;
  Slots& operator=(const Slots&) = delete;
};

CadenceConfig heartbeats() {
  CadenceConfig c;
  c.heartbeat_interval_s = 600;
  return c;
}

}  // namespace

TEST_CASE("the adapter's vtable is a policy vtable with every slot") {
  const frugal_strategy_desc desc = sdk::policy_strategy<CheckpointCadence>("x", "y", FRUGAL_STRATEGY_DETERMINISTIC);
  CHECK(desc.kind == FRUGAL_KIND_POLICY);
  CHECK(desc.flags == FRUGAL_STRATEGY_DETERMINISTIC);
  const auto* vt = static_cast<const frugal_policy_vtable*>(desc.vtable);
  CHECK(vt->struct_size == sizeof(frugal_policy_vtable));
  CHECK(vt->create != nullptr);
  CHECK(vt->destroy != nullptr);
  CHECK(vt->decide != nullptr);
  CHECK(vt->export_state != nullptr);
  CHECK(vt->import_state != nullptr);
}

TEST_CASE("decide writes a smaller proposal only up to its struct_size; the reason outlives the call") {
  Slots s(heartbeats());
  const frugal_telemetry t = record(600, 10, 2.0);
  // An older core whose decision ends before next_due_s and reason.
  struct {
    frugal_decision d;
    unsigned char guard[16];
  } small{};
  std::memset(&small, 0xAB, sizeof small);
  std::memset(&small.d, 0, offsetof(frugal_decision, next_due_s));
  small.d.struct_size = offsetof(frugal_decision, next_due_s);
  REQUIRE(Adapter::vtable.decide(s.instance, &t, &small.d) == nullptr);
  CHECK(small.d.checkpoint == FRUGAL_CKPT_HEARTBEAT);
  const auto* tail = reinterpret_cast<const unsigned char*>(&small.d) + offsetof(frugal_decision, next_due_s);
  for (std::size_t i = 0; i < sizeof(frugal_decision) - offsetof(frugal_decision, next_due_s); ++i)
    REQUIRE(tail[i] == 0xAB);

  frugal_decision full{};
  full.struct_size = sizeof(full);
  const frugal_telemetry later = record(660, 11, 2.0);
  REQUIRE(Adapter::vtable.decide(s.instance, &later, &full) == nullptr);
  REQUIRE(full.reason != nullptr);
  const std::string copy = full.reason;
  // Other work between calls does not move the reason.
  std::vector<std::string> churn(1000, std::string(64, 'x'));
  CHECK(std::string(full.reason) == copy);
  CHECK(copy == "heartbeat interval 10.0 min elapsed since job time 0 s");
}

TEST_CASE("decide refuses a telemetry struct smaller than v2.0 and NULL pointers, as errors") {
  Slots s(heartbeats());
  frugal_telemetry t = record(600, 10, 2.0);
  t.struct_size = offsetof(frugal_telemetry, preemption_notice_s);
  frugal_decision d{};
  d.struct_size = sizeof(d);
  expect_error(Adapter::vtable.decide(s.instance, &t, &d), FRUGAL_ERR_ABI_MISMATCH, {"telemetry->struct_size"});
  CHECK(d.checkpoint == FRUGAL_CKPT_NONE);
  expect_error(Adapter::vtable.decide(s.instance, nullptr, &d), FRUGAL_ERR_INVALID_ARGUMENT, {"telemetry"});
  t.struct_size = sizeof(t);
  expect_error(Adapter::vtable.decide(s.instance, &t, nullptr), FRUGAL_ERR_INVALID_ARGUMENT, {"proposal"});
}

TEST_CASE("export_state reports the size, refuses a short buffer, and import_state round-trips") {
  Slots s(heartbeats());
  frugal_decision d{};
  d.struct_size = sizeof(d);
  const frugal_telemetry t = record(700, 10, 2.0);
  REQUIRE(Adapter::vtable.decide(s.instance, &t, &d) == nullptr);
  size_t size = 0;
  REQUIRE(Adapter::vtable.export_state(s.instance, nullptr, 0, &size) == nullptr);
  REQUIRE(size > 0);
  std::vector<std::byte> blob(size);
  size_t short_size = 0;
  expect_error(Adapter::vtable.export_state(s.instance, blob.data(), size - 1, &short_size), FRUGAL_ERR_OUT_OF_RANGE,
               {"buffer"});
  CHECK(short_size == size);
  REQUIRE(Adapter::vtable.export_state(s.instance, blob.data(), blob.size(), &size) == nullptr);

  Slots fresh(heartbeats());
  REQUIRE(Adapter::vtable.import_state(fresh.instance, blob.data(), blob.size()) == nullptr);
  CHECK(fresh.instance->impl.export_state() == blob);
  expect_error(Adapter::vtable.import_state(fresh.instance, nullptr, 4), FRUGAL_ERR_INVALID_ARGUMENT, {"NULL"});
  blob[blob.size() / 2] ^= std::byte{0x40};
  expect_error(Adapter::vtable.import_state(fresh.instance, blob.data(), blob.size()), FRUGAL_ERR_DATA_CORRUPTED,
               {"checkpoint_cadence state", "checksum"});
}
