// The scheduler's state blob: a restored scheduler answers exactly like the
// one that exported (including the LR mid-cycle after a restart), the
// export counts as a checkpoint, and a damaged or mismatched blob is refused
// without changing anything.
#include <catch2/catch.hpp>

#include <cstring>
#include <limits>
#include <string>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "scheduler_harness.hpp"

using namespace frugal;
using frugal::test::record;
using frugal::test::SchedulerHarness;
using frugal::test::SchedulerSpec;

namespace {

SchedulerSpec restartable() {
  return SchedulerSpec{
      "sgdr",
      {{"lr", "0.01"}, {"min_lr", "0.001"}, {"cycle_steps", "100"}, {"cycle_mult", "2"}, {"shape", "linear"}},
      {{"probe_policy", {{"checkpoint_every", "3"}, {"due_in_s", "900"}}},
       {"probe_policy", {{"nodes", "2"}, {"resource", "2"}, {"reason", "second"}}}},
      4};
}

frugal_telemetry nth(int i) {
  frugal_telemetry t = record(600.0 * (i + 1), 10 * i, 3.0 / (1 + 0.01 * i));
  if (i % 4 == 3) t.flags = FRUGAL_TELEMETRY_EVAL_LOSS, t.eval_loss = t.loss + 0.1;
  return t;
}

struct Seen {
  frugal_decision d;
  std::string reason;
};

Seen step(SchedulerHarness& s, const frugal_telemetry& t) {
  Seen seen{s.step(t), s.reason()};
  seen.d.reason = nullptr;
  return seen;
}

void check_same(const Seen& a, const Seen& b) {
  CHECK(a.d.lr == b.d.lr);
  CHECK(a.d.checkpoint == b.d.checkpoint);
  CHECK(a.d.resource == b.d.resource);
  CHECK(a.d.target_nodes == b.d.target_nodes);
  CHECK(a.d.stop == b.d.stop);
  CHECK(a.d.next_due_s == b.d.next_due_s);
  CHECK(a.reason == b.reason);
}

void check_same(const frugal_cost_ledger& a, const frugal_cost_ledger& b) {
  CHECK(std::memcmp(&a, &b, sizeof(a)) == 0);
}

}  // namespace

TEST_CASE("an imported scheduler answers every later record exactly like the exporting one") {
  SchedulerHarness original(restartable());
  SchedulerHarness restored(restartable());
  for (int i = 0; i < 25; ++i) step(original, nth(i));
  REQUIRE(restored.import_state(original.export_state()).code == 0);
  check_same(original.ledger(), restored.ledger());
  for (int i = 25; i < 60; ++i) {
    INFO("record " << i);
    check_same(step(original, nth(i)), step(restored, nth(i)));
  }
  check_same(original.ledger(), restored.ledger());
  CHECK(original.export_state() == restored.export_state());
}

TEST_CASE(
    "every schedule, resumed from a checkpoint mid-phase, gives the uninterrupted LR; only the downtime is lost") {
  // Each schedule is exported at step 150, in the middle of a phase: the
  // warm-up (linear_warmup), the decay (cosine, wsd), the second cycle (sgdr).
  struct Case {
    const char* schedule;
    test::OptionList options;
  };
  const Case c = GENERATE(values<Case>({
      {"constant", {{"lr", "0.01"}}},
      {"linear_warmup", {{"lr", "0.01"}, {"warmup_steps", "300"}}},
      {"cosine", {{"lr", "0.01"}, {"min_lr", "0.001"}, {"warmup_steps", "50"}, {"total_steps", "350"}}},
      {"sgdr", {{"lr", "0.01"}, {"min_lr", "0.001"}, {"cycle_steps", "100"}, {"cycle_mult", "2"}, {"shape", "linear"}}},
      {"wsd",
       {{"lr", "0.01"},
        {"warmup_steps", "20"},
        {"total_steps", "400"},
        {"decay_steps", "300"},
        {"decay_shape", "1-sqrt"}}},
  }));
  INFO(c.schedule);
  SchedulerSpec spec = restartable();
  spec.schedule = c.schedule;
  spec.schedule_options = c.options;
  SchedulerHarness uninterrupted(spec);
  std::vector<double> lr_at_step(400);
  for (int s = 0; s < 400; ++s) lr_at_step[size_t(s)] = uninterrupted.step(record(10.0 * (s + 1), s, 2.0)).lr;

  SchedulerHarness job(spec);
  for (int s = 0; s <= 150; ++s) job.step(record(10.0 * (s + 1), s, 2.0));
  const std::vector<std::byte> checkpoint = job.export_state();
  for (int s = 151; s < 180; ++s) job.step(record(10.0 * (s + 1), s, 2.0));  // then preempted

  SchedulerHarness resumed(spec);
  REQUIRE(resumed.import_state(checkpoint).code == 0);
  frugal_telemetry first = record(5000, 151, 2.0);  // 3490 s after the checkpoint's last record
  first.flags = FRUGAL_TELEMETRY_RESTARTED;
  CHECK(resumed.step(first).lr == lr_at_step[size_t{151}]);
  for (int s = 152; s < 400; ++s) {
    INFO("step " << s);
    REQUIRE(resumed.step(record(5000 + 10.0 * (s - 151), s, 2.0)).lr == lr_at_step[size_t(s)]);
  }
  // The rate really moves across the resume point (not a constant by accident).
  if (std::string(c.schedule) != "constant") CHECK(lr_at_step[size_t{151}] != lr_at_step[size_t{152}]);
  if (std::string(c.schedule) == "sgdr") CHECK(lr_at_step[size_t{151}] == Approx(0.01 - 0.009 * 51.0 / 200.0));
  // The export was a checkpoint: the restart lost only the gap after it.
  const frugal_cost_ledger l = resumed.ledger();
  CHECK(l.lost_s == Approx(5000 - 1510));
  CHECK(l.restarts == 1);
}

TEST_CASE("the size query, a short buffer, and a damaged or foreign blob") {
  SchedulerHarness s(restartable());
  for (int i = 0; i < 10; ++i) step(s, nth(i));
  const std::vector<std::byte> good = s.export_state();

  size_t size = 0;
  std::vector<std::byte> small(good.size() - 1);
  const test::Outcome short_buffer =
      test::outcome(frugal_scheduler_export_state(s.get(), small.data(), small.size(), &size));
  CHECK(short_buffer.code == FRUGAL_ERR_OUT_OF_RANGE);
  CHECK(size == good.size());

  SchedulerHarness twin(restartable());
  for (int i = 0; i < 10; ++i) step(twin, nth(i));
  // Every single flipped byte is caught, by the magic or the checksum.
  for (size_t at = 0; at < good.size(); ++at) {
    std::vector<std::byte> bad = good;
    bad[at] ^= std::byte{0x20};
    const test::Outcome r = s.import_state(bad);
    INFO("byte " << at << ": " << r.message);
    REQUIRE(r.code == FRUGAL_ERR_DATA_CORRUPTED);
  }
  for (size_t keep : {size_t{0}, size_t{7}, size_t{16}, good.size() - 1}) {
    const test::Outcome r = test::outcome(frugal_scheduler_import_state(s.get(), good.data(), keep));
    INFO("kept " << keep << ": " << r.message);
    CHECK(r.code == FRUGAL_ERR_DATA_CORRUPTED);
  }
  // A scheduler configured otherwise refuses the blob, naming both lists.
  SchedulerSpec other = restartable();
  other.policies.pop_back();
  SchedulerHarness different(other);
  const test::Outcome mismatch = different.import_state(good);
  CHECK(mismatch.code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(mismatch.message.find("saved with policies [probe_policy, probe_policy]; this scheduler has "
                              "[probe_policy]") != std::string::npos);
  SchedulerSpec no_schedule = restartable();
  no_schedule.schedule.clear();
  SchedulerHarness unscheduled(no_schedule);
  CHECK(unscheduled.import_state(good).message.find("saved with schedule 'sgdr'; this scheduler has ''") !=
        std::string::npos);

  // None of that changed anything.
  for (int i = 10; i < 20; ++i) check_same(step(s, nth(i)), step(twin, nth(i)));
}

TEST_CASE("a policy refusing its state rolls the others back") {
  SchedulerSpec spec{"", {}, {{"probe_policy", {}}, {"probe_policy", {{"refuse_import", "true"}}}}};
  SchedulerHarness source(spec);
  for (int i = 0; i < 7; ++i) step(source, nth(i));
  SchedulerHarness target(spec);
  step(target, nth(0));
  const test::Outcome r = target.import_state(source.export_state());
  CHECK(r.code == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK(r.message == "policy 'probe_policy': scripted import refusal");
  // The first probe is back at one record seen, not seven.
  SchedulerSpec with_checkpoints{"", {}, {{"probe_policy", {{"checkpoint_every", "1"}}}, spec.policies[1]}};
  SchedulerHarness a(with_checkpoints), b(with_checkpoints);
  step(a, nth(0));
  for (int i = 0; i < 7; ++i) step(b, nth(i));
  CHECK(a.import_state(b.export_state()).code == FRUGAL_ERR_INVALID_ARGUMENT);
  step(a, nth(1));
  CHECK(a.reason() == "probe_policy: probe at record 2");
}

TEST_CASE("importing a saved state revives a failed scheduler") {
  SchedulerSpec spec{"", {}, {{"probe_policy", {{"fail_at_record", "3"}, {"checkpoint_every", "1"}}}}};
  SchedulerHarness s(spec);
  step(s, nth(0));
  step(s, nth(1));
  const std::vector<std::byte> saved = s.export_state();
  CHECK(s.try_step(nth(2)).code == FRUGAL_ERR_CANCELLED);
  CHECK(s.try_step(nth(3)).code == FRUGAL_ERR_FAILED_PRECONDITION);
  REQUIRE(s.import_state(saved).code == 0);
  // Record counting resumed from 2 saved records: the retry is record 3 and fails again, as scripted.
  CHECK(s.try_step(nth(2)).code == FRUGAL_ERR_CANCELLED);
}

namespace {

// One field of the scheduler's blob after the names, in the order written.
struct BlobField {
  const char* name;                                   // as the error names it
  int bytes;                                          // 1 (a flag) or 8
  std::vector<std::pair<uint64_t, std::string>> bad;  // the bits written, the value as the error writes it
};

uint64_t bits(double v) { return std::bit_cast<uint64_t>(v); }
uint64_t bits(int64_t v) { return static_cast<uint64_t>(v); }

// `blob` with the field at `offset` overwritten and the XXH3-64 recomputed.
std::vector<std::byte> patched(std::vector<std::byte> blob, size_t offset, int bytes, uint64_t value) {
  for (int i = 0; i < bytes; ++i) blob[offset + size_t(i)] = std::byte(uint8_t(value >> (8 * i)));
  const size_t body = blob.size() - 8;
  const uint64_t sum = XXH3_64bits(blob.data(), body);
  for (int i = 0; i < 8; ++i) blob[body + size_t(i)] = std::byte(uint8_t(sum >> (8 * i)));
  return blob;
}

}  // namespace

TEST_CASE("a checksum-valid blob with a field out of range, NaN or infinite is refused by name, changing nothing") {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const std::pair<uint64_t, std::string> nan{bits(kNaN), "nan"}, inf{bits(kInf), "inf"}, minus_inf{bits(-kInf), "-inf"},
      negative{bits(-1.0), "-1"}, flag{7, "7"}, below_zero{bits(int64_t{-1}), "-1"},
      huge_count{bits(std::numeric_limits<int64_t>::max()), "9223372036854775807"};
  const std::vector<std::pair<uint64_t, std::string>> money{nan, inf, minus_inf, negative}, loss{nan, inf, minus_inf},
      count{below_zero, huge_count};
  const std::vector<BlobField> fields{
      {"previous record", 1, {flag}},
      {"previous wall time", 8, money},
      {"previous step", 8, {below_zero}},
      {"previous tokens", 8, {below_zero}},
      {"notice flag", 1, {flag}},
      {"ledger.dollars", 8, money},
      {"ledger.spot_dollars", 8, money},
      {"ledger.reserved_dollars", 8, money},
      {"ledger.productive_dollars", 8, money},
      {"ledger.stall_dollars", 8, money},
      {"ledger.lost_dollars", 8, money},
      {"ledger.gpu_hours", 8, money},
      {"ledger.wall_s", 8, money},
      {"ledger.productive_s", 8, money},
      {"ledger.stall_s", 8, money},
      {"ledger.lost_s", 8, money},
      {"ledger.restarts", 8, count},
      {"ledger.checkpoints_full", 8, count},
      {"ledger.checkpoints_heartbeat", 8, count},
      {"ledger.has_loss", 1, {flag}},
      {"ledger.loss_first", 8, loss},
      {"ledger.loss_ema", 8, loss},
      {"ledger.loss_best", 8, loss},
  };
  const SchedulerSpec spec{"", {}, {{"probe_policy", {}}}};
  SchedulerHarness source(spec);
  for (int i = 0; i < 5; ++i) step(source, nth(i));
  const std::vector<std::byte> good = source.export_state();
  SchedulerHarness target(spec);
  SchedulerHarness twin(spec);
  for (int i = 0; i < 3; ++i) step(target, nth(i)), step(twin, nth(i));
  const std::vector<std::byte> before = target.export_state();
  twin.export_state();  // an export is a checkpoint for the ledger: keep the two alike

  // "FRSC", the format, an empty schedule name, one policy name.
  size_t offset = 4 + 4 + 4 + 4 + 4 + std::string("probe_policy").size();
  for (const BlobField& f : fields) {
    for (const auto& [value, text] : f.bad) {
      const std::string want = std::string("scheduler state: field '") + f.name + "' is " + text;
      INFO(want);
      const test::Outcome r = target.import_state(patched(good, offset, f.bytes, value));
      CHECK(r.code == FRUGAL_ERR_DATA_CORRUPTED);
      CHECK(r.message.find(want) != std::string::npos);
    }
    offset += size_t(f.bytes);
  }
  // None of it changed anything (a second export at the same point writes the same bytes).
  CHECK(target.export_state() == before);
  for (int i = 3; i < 12; ++i) check_same(step(target, nth(i)), step(twin, nth(i)));
  // The layout walked above is the real one: the good blob with a good value rewritten imports.
  REQUIRE(target.import_state(patched(good, offset - 8, 8, bits(2.5))).code == 0);
  CHECK(target.ledger().loss_best == 2.5);
}
