// The scheduler across ranks (frugal_scheduler_config.comm, ABI 2.4) in
// one process: the job record's rules (core/src/scheduler/job_record.cpp,
// compiled in), the test's own reading of them against the core's, and a
// scheduler over comm_local (a group of one) deciding bit for bit as one
// without a comm. The same run across 2 and 4 processes: scheduler_ranks.cpp.
#include <catch2/catch.hpp>

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "error.hpp"
#include "frugal/sdk/host.hpp"
#include "ranks_run.hpp"
#include "scheduler/job_record.hpp"
#include "test_helpers.hpp"

using namespace frugal;
using namespace frugal::test::ranks;
using frugal::test::expect_error;
using scheduling::PreviousRecord;
using scheduling::reduce_records;

namespace {

frugal_telemetry valid(int64_t step, int64_t tokens, double loss, double wall) {
  frugal_telemetry t{};
  t.struct_size = sizeof(t);
  t.nodes = 2;
  t.step = step;
  t.tokens = tokens;
  t.loss = loss;
  t.wall_time_s = wall;
  t.price_per_node_hour = 3.0;
  t.resource = FRUGAL_RESOURCE_SPOT;
  return t;
}

// Every bit of two structs (NaN payloads and the sign of zero included;
// frugal_telemetry and frugal_cost_ledger have no padding).
template <class T>
bool same_bits(const T& a, const T& b) {
  using Bytes = std::array<unsigned char, sizeof(T)>;
  return std::bit_cast<Bytes>(a) == std::bit_cast<Bytes>(b);
}

std::string describe(const frugal_telemetry& t) {
  return fmt::format("step {} tokens {} loss {} eval {} wall {} flags {} nodes {} price {} ckpt {} stall {} notice {}",
                     t.step, t.tokens, t.loss, t.eval_loss, t.wall_time_s, t.flags, t.nodes, t.price_per_node_hour,
                     t.checkpoint_done, t.checkpoint_stall_s, t.preemption_notice_s);
}

int32_t reduce_error(const std::vector<frugal_telemetry>& ranks, std::string& message) {
  try {
    (void)reduce_records(ranks, PreviousRecord{});
  } catch (const Error& e) {
    message = e.what();
    return e.code();
  }
  return 0;
}

struct LocalRig {
  host::ContextPtr context = make_context("comm_local");
  host::CommPtr comm = host::make_comm(context.get(), "local", nullptr);
};

// Counts the lines of a transcript whose reason is not empty.
int acting_lines(const std::vector<std::string>& lines) {
  int n = 0;
  for (const std::string& l : lines) n += l.size() > 1 && l[l.size() - 2] != ' ' ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("the job record: tokens summed, the loss weighted by tokens, the slowest clock, rank 0's capacity") {
  frugal_telemetry a = valid(7, 100, 2.0, 70.0);
  frugal_telemetry b = valid(7, 300, 1.0, 71.5);
  frugal_telemetry c = valid(7, 50, std::nan(""), 69.0);
  c.flags = FRUGAL_TELEMETRY_NO_LOSS | FRUGAL_TELEMETRY_EVAL_LOSS | FRUGAL_TELEMETRY_RESTARTED;
  c.eval_loss = 3.0;
  a.flags = FRUGAL_TELEMETRY_EVAL_LOSS;
  a.eval_loss = 1.0;
  b.nodes = 9;  // the other ranks' capacity is not the job's
  b.price_per_node_hour = 50.0;
  b.resource = FRUGAL_RESOURCE_RESERVED;
  b.checkpoint_done = FRUGAL_CKPT_FULL;
  b.checkpoint_stall_s = 4.0;
  c.checkpoint_done = FRUGAL_CKPT_HEARTBEAT;
  c.checkpoint_stall_s = 6.0;
  b.preemption_notice_s = 30.0;
  c.preemption_notice_s = 12.0;
  PreviousRecord previous;
  previous.present = true;
  previous.wall_s = 60.0;
  const frugal_telemetry job = reduce_records(std::vector{a, b, c}, previous);
  INFO(describe(job));
  CHECK(job.struct_size == sizeof(frugal_telemetry));
  CHECK(job.step == 7);
  CHECK(job.tokens == 450);
  CHECK(job.loss == 0.25 * 2.0 + 0.75 * 1.0);  // rank 2 has no loss: its tokens weigh nothing
  CHECK(job.eval_loss == 0.5 * 1.0 + 0.5 * 3.0);
  CHECK(job.flags == (FRUGAL_TELEMETRY_EVAL_LOSS | FRUGAL_TELEMETRY_RESTARTED));
  CHECK(job.wall_time_s == 71.5);
  CHECK(job.checkpoint_done == FRUGAL_CKPT_FULL);
  CHECK(job.checkpoint_stall_s == 6.0);
  CHECK(job.preemption_notice_s == 12.0);
  CHECK(job.nodes == 2);
  CHECK(job.price_per_node_hour == 3.0);
  CHECK(job.resource == FRUGAL_RESOURCE_SPOT);
}

TEST_CASE("the job record: a plain mean without tokens, NO_LOSS only when no rank has a loss") {
  std::vector<frugal_telemetry> ranks = {valid(3, 0, 1.0, 1), valid(3, 0, 2.0, 2), valid(3, 0, 4.0, 3)};
  frugal_telemetry job = reduce_records(ranks, PreviousRecord{});
  CHECK(job.loss == (1.0 / 3.0) * 1.0 + (1.0 / 3.0) * 2.0 + (1.0 / 3.0) * 4.0);
  CHECK((job.flags & FRUGAL_TELEMETRY_NO_LOSS) == 0);
  for (auto& t : ranks) t.flags = FRUGAL_TELEMETRY_NO_LOSS, t.loss = std::nan("");
  job = reduce_records(ranks, PreviousRecord{});
  CHECK(job.flags == FRUGAL_TELEMETRY_NO_LOSS);
  CHECK(job.loss == 0.0);
  CHECK(job.preemption_notice_s == 0.0);
}

TEST_CASE("the job record: the slowest stall is clamped to the job's interval") {
  frugal_telemetry a = valid(1, 10, 1.0, 110.0);
  frugal_telemetry b = valid(1, 10, 1.0, 105.0);
  b.checkpoint_done = FRUGAL_CKPT_FULL;
  b.checkpoint_stall_s = 15.0;  // b's own interval was longer: its clock is behind
  PreviousRecord previous;
  previous.present = true;
  previous.wall_s = 100.0;
  const frugal_telemetry job = reduce_records(std::vector{a, b}, previous);
  CHECK(job.checkpoint_stall_s == 10.0 + scheduling::stall_slack(10.0));
  b.checkpoint_stall_s = 2.0;
  CHECK(reduce_records(std::vector{a, b}, previous).checkpoint_stall_s == 2.0);
}

TEST_CASE("the job record: ranks at other steps, or tokens past int64, are refused naming the rank") {
  std::string message;
  CHECK(reduce_error({valid(5, 1, 1, 1), valid(5, 1, 1, 1), valid(6, 1, 1, 1)}, message) ==
        FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK_THAT(message, Catch::Contains("telemetry.step is 6 on rank 2 and 5 on rank 0"));
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  CHECK(reduce_error({valid(5, kMax, 1, 1), valid(5, 1, 1, 1)}, message) == FRUGAL_ERR_INVALID_ARGUMENT);
  CHECK_THAT(message, Catch::Contains("telemetry.tokens summed over ranks 0..1"));
  CHECK(reduce_error({valid(5, kMax - 1, 1, 1), valid(5, 1, 1, 1)}, message) == 0);
}

TEST_CASE("the job record of one rank is its record, bit for bit") {
  for (int i = 0; i < kRecords; ++i) {
    frugal_telemetry t = rank_record(i, 1, 2);
    PreviousRecord previous;
    previous.present = i > 0;
    previous.wall_s = i > 0 ? rank_record(i - 1, 1, 2).wall_time_s : 0.0;
    const frugal_telemetry job = reduce_records(std::vector{t}, previous);
    if ((t.flags & FRUGAL_TELEMETRY_NO_LOSS) != 0) t.loss = 0.0;  // as policies see it
    INFO("record " << i << ": " << describe(t) << " became " << describe(job));
    CHECK(same_bits(job, t));
  }
}

TEST_CASE("the test's own job record agrees with the core's, bit for bit, over the recorded run") {
  for (int size : {2, 3, 4}) {
    double previous_wall = 0;
    int with_notice = 0;
    for (int i = 0; i < kRecords; ++i) {
      const std::vector<frugal_telemetry> ranks = all_ranks(i, size);
      PreviousRecord previous;
      previous.present = i > 0;
      previous.wall_s = previous_wall;
      const frugal_telemetry core = reduce_records(ranks, previous);
      const frugal_telemetry mine = job_record(ranks, previous_wall);
      INFO(size << " ranks, record " << i << ": core " << describe(core) << ", test " << describe(mine));
      REQUIRE(same_bits(core, mine));
      with_notice += core.preemption_notice_s > 0 ? 1 : 0;
      previous_wall = core.wall_time_s;
    }
    CHECK(with_notice == kRestartRecord - kNoticeRecord);  // rank 1's notice reached the job record
  }
}

TEST_CASE("a rank's packet carries its record, status and digest bit for bit") {
  scheduling::RankPacket p;
  p.status = scheduling::RankStatus::failed;
  p.record = rank_record(5, 1, 2);
  p.record.loss = std::bit_cast<double>(0x7FF8'0000'0000'1234ull);  // a NaN with a payload
  p.record.eval_loss = -0.0;
  p.record.resource = FRUGAL_RESOURCE_RESERVED;
  p.record.checkpoint_done = FRUGAL_CKPT_FULL;
  p.digest = 0xDEAD'BEEF'0123'4567ull;
  const scheduling::PacketWords words = scheduling::pack(p);
  static_assert(sizeof(words) == 112, "the packet frugal/scheduler.h describes");
  const scheduling::RankPacket back = scheduling::unpack(words);
  CHECK(back.status == p.status);
  CHECK(back.digest == p.digest);
  CHECK(same_bits(back.record, p.record));
  scheduling::PacketWords bad = words;
  bad[0] = 77;
  CHECK(scheduling::unpack(bad).status == scheduling::RankStatus::refused);
}

TEST_CASE("a step's digest changes with any field of the decision, the reason or the ledger") {
  frugal_decision d{};
  d.struct_size = sizeof(d);
  d.lr = 1e-4;
  frugal_cost_ledger l{};
  l.struct_size = sizeof(l);
  const uint64_t base = scheduling::step_digest(d, "a", l);
  CHECK(base != 0);
  CHECK(scheduling::step_digest(d, "a", l) == base);
  CHECK(scheduling::step_digest(d, "b", l) != base);
  frugal_decision d2 = d;
  d2.target_nodes = 3;
  CHECK(scheduling::step_digest(d2, "a", l) != base);
  d2 = d;
  d2.next_due_s = 1;
  CHECK(scheduling::step_digest(d2, "a", l) != base);
  frugal_cost_ledger l2 = l;
  l2.lost_s = 1e-300;
  CHECK(scheduling::step_digest(d, "a", l2) != base);
  d2 = d;
  d2.reason = "another pointer, the same text";  // the pointer is not hashed
  CHECK(scheduling::step_digest(d2, "a", l) == base);
}

TEST_CASE("over comm_local the scheduler decides as one without a comm, bit for bit") {
  // The job records of a run of 4 ranks, fed to a group of one: each job
  // record is its own reduction, so the decisions, reasons, ledgers and the
  // final state must be those of a scheduler without a comm.
  LocalRig rig;
  const Reference reference = reference_run(rig.context.get(), 4);
  host::SchedulerPtr scheduler;
  host::check(create_scheduler(rig.context.get(), rig.comm.get(), scheduler));
  std::vector<std::string> lines;
  double previous_wall = 0;
  for (int i = 0; i < kRecords; ++i) {
    const frugal_telemetry job = job_record(all_ranks(i, 4), previous_wall);
    previous_wall = job.wall_time_s;
    std::string line;
    const StepResult r = step(scheduler.get(), job, &line);
    INFO("record " << i << ": " << r.message);
    REQUIRE(r.code == 0);
    lines.push_back(line);
    CHECK(line == reference.lines[static_cast<size_t>(i)]);
    if (i == kNoticeRecord) {
      CHECK(r.decision.checkpoint != FRUGAL_CKPT_NONE);
      CHECK_THAT(r.reason, Catch::Contains("preemption notice"));
    }
  }
  CHECK(export_state(scheduler.get()) == reference.state);
  // Not a vacuous run: checkpoints, resource and node changes were decided.
  CHECK(acting_lines(lines) >= 8);
}

TEST_CASE("the notice decides the emergency checkpoint: without it record 120 asks for none") {
  auto context = make_context("");
  const Reference with = reference_run(context.get(), 2, true);
  const Reference without = reference_run(context.get(), 2, false);
  // Field 2 of a line is the checkpoint kind.
  const auto checkpoint_of = [](const std::string& line) { return line.substr(17, 16); };
  CHECK(checkpoint_of(with.lines[kNoticeRecord]) != std::string(16, '0'));
  CHECK(checkpoint_of(without.lines[kNoticeRecord]) == std::string(16, '0'));
  CHECK(checkpoint_of(with.lines[kNoticeRecord - 1]) == std::string(16, '0'));
}

TEST_CASE("a state moves between a scheduler over a comm and one without") {
  LocalRig rig;
  host::SchedulerPtr ranked;
  host::SchedulerPtr plain;
  host::check(create_scheduler(rig.context.get(), rig.comm.get(), ranked));
  host::check(create_scheduler(rig.context.get(), nullptr, plain));
  const auto job_at = [](int i) {
    return job_record(all_ranks(i, 2), i > 0 ? job_record(all_ranks(i - 1, 2), 0).wall_time_s : 0.0);
  };
  for (int i = 0; i < 80; ++i) REQUIRE(step(ranked.get(), job_at(i)).code == 0);
  const std::vector<std::byte> blob = export_state(ranked.get());
  host::check(frugal_scheduler_import_state(plain.get(), blob.data(), blob.size()));
  for (int i = 80; i < 130; ++i) {
    std::string a;
    std::string b;
    REQUIRE(step(ranked.get(), job_at(i), &a).code == 0);
    REQUIRE(step(plain.get(), job_at(i), &b).code == 0);
    INFO("record " << i);
    CHECK(a == b);
  }
  const std::vector<std::byte> back = export_state(plain.get());
  CHECK(back == export_state(ranked.get()));
  host::check(frugal_scheduler_import_state(ranked.get(), back.data(), back.size()));
  std::string a;
  std::string b;
  REQUIRE(step(ranked.get(), job_at(130), &a).code == 0);
  REQUIRE(step(plain.get(), job_at(130), &b).code == 0);
  CHECK(a == b);
}

TEST_CASE("over a comm a refused record or argument changes nothing") {
  LocalRig rig;
  host::SchedulerPtr ranked;
  host::SchedulerPtr plain;
  host::check(create_scheduler(rig.context.get(), rig.comm.get(), ranked));
  host::check(create_scheduler(rig.context.get(), nullptr, plain));
  double previous_wall = 0;
  for (int i = 0; i < 100; ++i) {
    const frugal_telemetry job = job_record(all_ranks(i, 2), previous_wall);
    previous_wall = job.wall_time_s;
    if (i == 60) {
      const frugal_cost_ledger before = ledger_of(ranked.get());
      frugal_telemetry bad = job;
      bad.loss = std::numeric_limits<double>::infinity();
      StepResult r = step(ranked.get(), bad);
      CHECK(r.code == FRUGAL_ERR_INVALID_ARGUMENT);
      CHECK_THAT(r.message, Catch::Contains("telemetry.loss is inf"));
      bad = job;
      bad.wall_time_s = 1.0;  // the job clock going back: refused on the job record
      r = step(ranked.get(), bad);
      CHECK(r.code == FRUGAL_ERR_INVALID_ARGUMENT);
      CHECK_THAT(r.message, Catch::Contains("the job's record across 1 ranks: telemetry.wall_time_s went back"));
      bad = job;
      bad.checkpoint_done = FRUGAL_CKPT_FULL;
      bad.checkpoint_stall_s = 600.0;  // one rank's stall is not clamped: refused as without a comm
      r = step(ranked.get(), bad);
      CHECK(r.code == FRUGAL_ERR_INVALID_ARGUMENT);
      CHECK_THAT(r.message, Catch::Contains("telemetry.checkpoint_stall_s is 600 s at step 60, longer than"));
      frugal_decision d{};
      d.struct_size = sizeof(d);
      expect_error(frugal_scheduler_step(ranked.get(), nullptr, &d), FRUGAL_ERR_INVALID_ARGUMENT, {"telemetry"});
      d.struct_size = 0;
      expect_error(frugal_scheduler_step(ranked.get(), &job, &d), FRUGAL_ERR_INVALID_ARGUMENT,
                   {"decision->struct_size is 0"});
      expect_error(frugal_scheduler_step(ranked.get(), &job, nullptr), FRUGAL_ERR_INVALID_ARGUMENT, {"decision"});
      const frugal_cost_ledger after = ledger_of(ranked.get());
      CHECK(same_bits(before, after));
    }
    std::string a;
    std::string b;
    REQUIRE(step(ranked.get(), job, &a).code == 0);
    REQUIRE(step(plain.get(), job, &b).code == 0);
    INFO("record " << i);
    CHECK(a == b);
  }
  CHECK(export_state(ranked.get()) == export_state(plain.get()));
}

TEST_CASE("the scheduler keeps its own sub-group: the host may destroy its comm at once") {
  LocalRig rig;
  host::SchedulerPtr scheduler;
  host::check(create_scheduler(rig.context.get(), rig.comm.get(), scheduler));
  rig.comm.reset();
  double previous_wall = 0;
  for (int i = 0; i < 20; ++i) {
    const frugal_telemetry job = job_record(all_ranks(i, 2), previous_wall);
    previous_wall = job.wall_time_s;
    const StepResult r = step(scheduler.get(), job);
    INFO(r.message);
    REQUIRE(r.code == 0);
  }
}

TEST_CASE("a config of ABI 2.3's size has no comm: the bytes after it are never read") {
  auto context = make_context("");
  // A 2.3 host's config ends at reserved0; what follows in memory is not its.
  struct {
    frugal_scheduler_config config;
    unsigned char tail[8];
  } raw;
  std::memset(&raw, 0xAB, sizeof(raw));
  frugal_scheduler_config& config = raw.config;
  config.struct_size = offsetof(frugal_scheduler_config, comm);
  config.schedule = nullptr;
  config.schedule_options = nullptr;
  const char* policy = "checkpoint_cadence";
  config.policies = &policy;
  config.policy_options = nullptr;
  config.policy_count = 1;
  config.gpus_per_node = 1;
  config.reserved0 = 0;
  frugal_scheduler* scheduler = nullptr;
  host::check(frugal_scheduler_create(context.get(), &config, &scheduler));
  host::SchedulerPtr owned(scheduler);
  REQUIRE(step(scheduler, rank_record(2, 0, 1)).code == 0);
}

TEST_CASE("over a comm a create that fails on the rank fails with the rank's own error") {
  LocalRig rig;
  host::SchedulerPtr scheduler;
  expect_error(create_scheduler(rig.context.get(), rig.comm.get(), scheduler, {}, true), FRUGAL_ERR_INVALID_ARGUMENT,
               {"no_such_option"});
  CHECK(scheduler == nullptr);
  expect_error(create_scheduler(rig.context.get(), rig.comm.get(), scheduler, {"no_such_policy"}), FRUGAL_ERR_NOT_FOUND,
               {"no_such_policy"});
}
