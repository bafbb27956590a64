// Crafted state blobs with a valid checksum: every field of every
// strategy's state, written out of range, NaN or infinite, is refused with
// DATA_CORRUPTED naming the field and the value, and the instance that
// refused it is left exactly as it was (import is all or nothing).
#include <catch2/catch.hpp>

#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/window_improvement.hpp"
#include "plugin/checkpoint_cadence.hpp"
#include "plugin/early_stop.hpp"
#include "plugin/plateau_autoscaler.hpp"
#include "plugin/spot_phase.hpp"
#include "policy_test_support.hpp"

using namespace frugal::test;
using namespace frugal::policy::plugin;
using frugal::sdk::StateWriter;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int64_t kMaxInt = std::numeric_limits<int64_t>::max();
constexpr int64_t kMaxIndex = frugal::policy::WindowImprovement::kMaxIndex;

enum class Kind { f64, i64, u64, u8 };

// One field value as the blob holds it.
struct Value {
  Kind kind;
  double f = 0.0;
  int64_t i = 0;
};
Value F(double v) { return {Kind::f64, v, 0}; }
Value I(int64_t v) { return {Kind::i64, 0.0, v}; }
Value N(int64_t v) { return {Kind::u64, 0.0, v}; }  // a count of later items
Value B(uint8_t v) { return {Kind::u8, 0.0, v}; }   // a flag or an enum byte

// The value as an error message writes it ("nan", "-1", "1e+300").
std::string text_of(const Value& v) {
  if (v.kind == Kind::u64) return std::to_string(static_cast<uint64_t>(v.i));
  if (v.kind != Kind::f64) return std::to_string(v.i);
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v.f);
  return std::string(buf, r.ptr);
}

struct Field {
  const char* name;  // as the error names it
  Value good;
  std::vector<Value> bad;
};

// The blob of a strategy (magic, version, options fingerprint, empty
// reason, the fields), with field `replaced` holding `with` instead.
std::vector<std::byte> craft(const char* magic, uint64_t options_hash, const std::vector<Field>& fields,
                             std::size_t replaced = SIZE_MAX, Value with = {}) {
  StateWriter w(magic, std::string_view(magic) == "PCCK" ? 3 : kStateVersion);  // checkpoint_cadence: version 3
  w.u64(options_hash).text("");
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const Value& v = i == replaced ? with : fields[i].good;
    switch (v.kind) {
      case Kind::f64: w.f64(v.f); break;
      case Kind::i64: w.i64(v.i); break;
      case Kind::u64: w.u64(static_cast<uint64_t>(v.i)); break;
      case Kind::u8: w.u8(static_cast<uint8_t>(v.i)); break;
    }
  }
  return std::move(w).finish();
}

// The good blob imports (the layout above is the real one); each bad value
// of each field is refused naming it, and leaves a live instance as it was.
template <class Policy, class Config>
void check_every_field(const Config& config, const char* magic, const std::vector<Field>& fields) {
  Policy fresh{config};
  fresh.import_state(craft(magic, fingerprint(config), fields));

  Policy live{config};
  const std::vector<frugal_telemetry> records = busy_day();
  for (std::size_t i = 0; i < 400; ++i) (void)ask(live, records[i]);
  const std::vector<std::byte> before = live.export_state();
  int refused = 0;
  for (std::size_t f = 0; f < fields.size(); ++f) {
    for (const Value& bad : fields[f].bad) {
      const std::string want = "field '" + std::string(fields[f].name) + "' is " + text_of(bad);
      INFO(want);
      const auto [code, message] =
          failure([&] { live.import_state(craft(magic, fingerprint(config), fields, f, bad)); });
      CHECK(code == FRUGAL_ERR_DATA_CORRUPTED);
      CHECK_THAT(message, Catch::Contains(want));
      REQUIRE(live.export_state() == before);
      ++refused;
    }
  }
  CHECK(refused > static_cast<int>(fields.size()));
  // Still the same instance: it answers the rest like one never offered a blob.
  Policy reference{config};
  for (std::size_t i = 0; i < 400; ++i) (void)ask(reference, records[i]);
  for (std::size_t i = 400; i < 500; ++i) REQUIRE(ask(live, records[i]) == ask(reference, records[i]));
}

const std::vector<Value> kNotFinite{F(kNaN), F(kInf), F(-kInf)};
const std::vector<Value> kNotTime{F(kNaN), F(kInf), F(-1.0), F(-1e300)};
const std::vector<Value> kNotCounter{I(-1), I(kMaxInt), I(int64_t{1} << 60)};
const std::vector<Value> kNotFlag{B(2), B(255)};

}  // namespace

TEST_CASE("plateau_autoscaler: every out-of-range state field is refused by name, changing nothing") {
  AutoscalerConfig c;
  c.max_nodes = 12;
  c.window_s = 1800;
  check_every_field<PlateauAutoscaler>(c, "PCAS",
                                       {
                                           {"started", B(1), kNotFlag},
                                           {"target nodes", I(4), {I(0), I(13), I(-5), I(kMaxInt)}},
                                           {"has change", B(1), kNotFlag},
                                           {"last change time", F(100), kNotTime},
                                           {"window origin", F(100), kNotTime},
                                           {"window index", I(3), {I(-1), I(kMaxIndex + 1), I(kMaxInt)}},
                                           {"window sum", F(5), kNotFinite},
                                           {"window count", I(2), kNotCounter},
                                           {"has last window", B(1), kNotFlag},
                                           {"last window mean", F(2.5), kNotFinite},
                                           {"has previous window", B(1), kNotFlag},
                                           {"previous window mean", F(2.6), kNotFinite},
                                       });
}

TEST_CASE("plateau_autoscaler: before the first record the target must be 0") {
  AutoscalerConfig c;
  c.max_nodes = 12;
  PlateauAutoscaler p{c};
  const std::vector<Field> fields{
      {"started", B(0), {}},          {"target nodes", I(4), {}},        {"has change", B(0), {}},
      {"last change time", F(0), {}}, {"window origin", F(0), {}},       {"window index", I(0), {}},
      {"window sum", F(0), {}},       {"window count", I(0), {}},        {"has last window", B(0), {}},
      {"last window mean", F(0), {}}, {"has previous window", B(0), {}}, {"previous window mean", F(0), {}}};
  const auto [code, message] = failure([&] { p.import_state(craft("PCAS", fingerprint(c), fields)); });
  CHECK(code == FRUGAL_ERR_DATA_CORRUPTED);
  CHECK_THAT(message, Catch::Contains("field 'target nodes' is 4; it must be in [0, 0]"));
}

TEST_CASE("early_stop: every out-of-range state field is refused by name, changing nothing") {
  EarlyStopConfig c;
  c.patience = 12;
  check_every_field<EarlyStop>(c, "PCES",
                               {
                                   {"has best", B(1), kNotFlag},
                                   {"best", F(2.0), kNotFinite},
                                   {"best step", I(10), {I(-1), I(-kMaxInt)}},
                                   {"evaluations since the best", I(1), kNotCounter},
                                   {"stopped", B(0), kNotFlag},
                               });
}

TEST_CASE("spot_phase: every out-of-range state field is refused by name, changing nothing") {
  SpotPhaseConfig c;
  c.window = 24;
  c.max_preemptions = 2;
  check_every_field<SpotPhase>(c, "PCSP",
                               {
                                   {"phase", B(0), {B(3), B(255)}},
                                   {"loss samples", N(2), {N(25), N(-1)}},
                                   {"sample time", F(10), kNotTime},
                                   {"sample loss", F(3), kNotFinite},
                                   {"sample time", F(20), {F(9.5), F(kNaN), F(kInf)}},  // before the first sample
                                   {"sample loss", F(2.9), kNotFinite},
                                   {"has sample", B(1), {B(0), B(2), B(255)}},  // 0 with two samples
                                   {"last sample time", F(20), {F(19), F(21), F(kNaN), F(kInf), F(-1.0)}},
                                   {"passing tests", I(1), kNotCounter},
                                   {"samples since the last test", I(2), {I(-1), I(24), I(kMaxInt)}},
                                   {"tests run", I(3), kNotCounter},
                                   {"last z", F(-3), kNotFinite},
                                   {"last noise", F(0.2), {F(-0.5), F(kNaN), F(kInf)}},
                                   {"restarts", N(2), {N(3), N(-1)}},
                                   {"restart time", F(5), kNotTime},
                                   {"restart time", F(15), {F(4), F(kNaN)}},  // before the first restart
                                   {"has spike", B(0), kNotFlag},
                                   {"last spike time", F(0), kNotTime},
                               });
}

TEST_CASE("checkpoint_cadence: every out-of-range state field is refused by name, changing nothing") {
  CadenceConfig c;
  c.heartbeat_interval_s = 900;
  c.full_interval_steps = 3000;
  check_every_field<CheckpointCadence>(c, "PCCK",
                                       {
                                           {"checkpoint_cost_s", F(60), {F(0), F(-1), F(kNaN), F(kInf)}},
                                           {"clock_s", F(1000), kNotTime},
                                           {"restarts", I(1), kNotCounter},
                                           {"last full time", F(500), kNotTime},
                                           {"last full step", I(50), {I(-1), I(-kMaxInt)}},
                                           {"young/daly start", F(500), kNotTime},
                                           {"last checkpoint time", F(600), kNotTime},
                                           {"previous step", I(60), {I(-1), I(-kMaxInt)}},
                                           {"previous time", F(610), kNotTime},
                                           {"asked for a full", B(1), kNotFlag},
                                           {"asked full step", I(55), {I(-1), I(-kMaxInt)}},
                                           {"asked full time", F(605), kNotTime},
                                           {"in notice", B(0), kNotFlag},
                                           {"reason rule", B(0), {B(6), B(255)}},
                                           {"reason start", I(0), {}},
                                       });
}

TEST_CASE("spot_phase refuses a record older than the newest time of its imported state") {
  // A state whose times lie past the host's clock (crafted, or from another
  // job) imports; the first record before those times is refused, naming
  // both, and records nothing out of order, so the state still exports and
  // imports. Found by fuzz_state_import.
  SpotPhaseConfig c;
  c.window = 24;
  c.max_preemptions = 2;
  const std::vector<Field> fields = {
      {"phase", B(0), {}},           {"loss samples", N(2), {}},
      {"sample time", F(10), {}},    {"sample loss", F(3), {}},
      {"sample time", F(900), {}},   {"sample loss", F(2.9), {}},
      {"has sample", B(1), {}},      {"last sample time", F(900), {}},
      {"passing tests", I(0), {}},   {"samples since the last test", I(2), {}},
      {"tests run", I(0), {}},       {"last z", F(0), {}},
      {"last noise", F(0), {}},      {"restarts", N(1), {}},
      {"restart time", F(1000), {}}, {"has spike", B(0), {}},
      {"last spike time", F(0), {}},
  };
  SpotPhase policy{c};
  policy.import_state(craft("PCSP", fingerprint(c), fields));
  const std::vector<std::byte> imported = policy.export_state();
  const auto [code, message] = failure([&] { (void)ask(policy, record(999.0, 5, 2.5)); });
  CHECK(code == FRUGAL_ERR_FAILED_PRECONDITION);
  CHECK_THAT(message, Catch::Contains("telemetry.wall_time_s 999 s is before 1000 s"));
  CHECK(policy.export_state() == imported);
  // A time a hair before the newest one prints as itself, not rounded onto
  // it (fuzz_policy_state found "0.000 s is before 0.000 s").
  const auto [hair_code, hair_message] =
      failure([&] { (void)ask(policy, record(std::nextafter(1000.0, 0.0), 5, 2.5)); });
  CHECK(hair_code == FRUGAL_ERR_FAILED_PRECONDITION);
  CHECK_THAT(hair_message, Catch::Contains("999.9999999999999 s is before 1000 s"));
  CHECK(policy.export_state() == imported);
  SpotPhase again{c};
  again.import_state(policy.export_state());
  // From the state's newest time on, records are taken as usual.
  (void)ask(policy, record(2000.0, 6, 2.5));
  CHECK(policy.export_state() != imported);
  SpotPhase after{c};
  after.import_state(policy.export_state());
  CHECK(after.export_state() == policy.export_state());
}
