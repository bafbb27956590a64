// checkpoint_cadence in process: timers, steps, Young/Daly learnt from
// telemetry, preemption notices, restarts and next_due_s.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/young_daly.hpp"
#include "plugin/checkpoint_cadence.hpp"
#include "policy_test_support.hpp"

using namespace frugal::test;
using frugal::policy::young_interval;
using frugal::policy::plugin::CadenceConfig;
using frugal::policy::plugin::CheckpointCadence;

namespace {

struct Taken {
  double time_s;
  int32_t kind;
  friend bool operator==(const Taken&, const Taken&) = default;
};

std::ostream& operator<<(std::ostream& os, const Taken& t) { return os << "{" << t.time_s << ", " << t.kind << "}"; }

// A host that takes every proposed checkpoint during the next interval and
// reports it done (with `stall_s` for a full) on the next record. Records
// every `every_s` seconds, `steps_per_record` steps each; `restarts` are
// the times of FRUGAL_TELEMETRY_RESTARTED records.
struct ObedientHost {
  double every_s = 60.0;
  int64_t steps_per_record = 10;
  double stall_s = 0.0;
  std::vector<double> restarts;

  std::vector<Taken> proposals;  // every proposal, at its record's time
  std::vector<Answer> answers;

  void run(CheckpointCadence& policy, double until_s) {
    uint32_t pending = FRUGAL_CKPT_NONE;
    int64_t step = 0;
    for (double t = every_s; t <= until_s; t += every_s) {
      step += steps_per_record;
      frugal_telemetry r = record(t, step, 2.0);
      if (std::find(restarts.begin(), restarts.end(), t) != restarts.end()) {
        r.flags |= FRUGAL_TELEMETRY_RESTARTED;
        pending = FRUGAL_CKPT_NONE;  // the save in flight died with the nodes
      }
      r.checkpoint_done = pending;
      r.checkpoint_stall_s = pending == FRUGAL_CKPT_FULL ? stall_s : 0.0;
      const Answer a = ask(policy, r);
      answers.push_back(a);
      if (a.checkpoint != FRUGAL_CKPT_NONE) proposals.push_back({t, a.checkpoint});
      pending = a.checkpoint;
    }
  }
};

CheckpointCadence cadence(const CadenceConfig& c) { return CheckpointCadence(c); }

}  // namespace

TEST_CASE("heartbeats follow the timer and fulls the step count; a full restarts the heartbeat timer") {
  CadenceConfig c;
  c.heartbeat_interval_s = 600;
  c.full_interval_steps = 1000;
  CheckpointCadence policy = cadence(c);
  ObedientHost host;  // a record a minute, 10 steps each: 1000 steps = 6000 s
  host.run(policy, 8000);
  // Each heartbeat is reported done a record (60 s) after it was proposed,
  // and the timer counts from the report.
  const std::vector<Taken> want{{600, 1},  {1260, 1}, {1920, 1}, {2580, 1}, {3240, 1}, {3900, 1}, {4560, 1},
                                {5220, 1}, {5880, 1}, {6000, 2}, {6660, 1}, {7320, 1}, {7980, 1}};
  CHECK(host.proposals == want);
  CHECK(host.answers[9].reason == "heartbeat interval 10.0 min elapsed since job time 0 s");
  CHECK(host.answers[20].reason == "heartbeat interval 10.0 min elapsed since job time 11.0 min");
  CHECK(host.answers[99].reason == "full-checkpoint interval of 1000 steps reached since step 0");
  // next_due_s: the heartbeat timer, counting a proposed checkpoint as taken now.
  CHECK(host.answers[0].next_due_s == 600);
  CHECK(host.answers[9].next_due_s == 1200);
  CHECK(host.answers[10].next_due_s == 1260);  // the report at 660 restarted the timer
  CHECK(host.answers[99].next_due_s == 6600);
}

TEST_CASE("a due checkpoint is proposed again on every record until it is reported done") {
  CadenceConfig c;
  c.full_interval_s = 3600;
  CheckpointCadence policy = cadence(c);
  CHECK(ask(policy, record(3540, 100, 2.0)).checkpoint == FRUGAL_CKPT_NONE);
  const Answer due = ask(policy, record(3600, 101, 2.0));
  CHECK(due.checkpoint == FRUGAL_CKPT_FULL);
  CHECK(due.reason == "full-checkpoint interval 60.0 min elapsed since job time 0 s");
  CHECK(due.next_due_s == 7200);
  const Answer again = ask(policy, record(3660, 102, 2.0));
  CHECK(again.checkpoint == FRUGAL_CKPT_FULL);
  CHECK(again.reason == due.reason);
  frugal_telemetry done = record(3720, 103, 2.0);
  done.checkpoint_done = FRUGAL_CKPT_FULL;
  done.checkpoint_stall_s = 30;
  const Answer after = ask(policy, done);
  CHECK(after.checkpoint == FRUGAL_CKPT_NONE);
  CHECK(after.reason.empty());
  // The full holds the state of the record that first asked (3600): the
  // next one is due at the next multiple, not an interval after the report.
  CHECK(after.next_due_s == 7200);
}

TEST_CASE("no timer configured: never a checkpoint, next_due_s 0") {
  CheckpointCadence policy = cadence(CadenceConfig{});
  for (int i = 1; i < 500; ++i) {
    const Answer a = ask(policy, record(i * 1000.0, i, 2.0));
    REQUIRE(a == Answer{});
  }
}

TEST_CASE("a restart restarts the heartbeat timer, not the full count: a multiple passed without a full is due") {
  CadenceConfig c;
  c.heartbeat_interval_s = 600;
  c.full_interval_steps = 1000;
  CheckpointCadence policy = cadence(c);
  CHECK(ask(policy, record(500, 900, 2.0)).next_due_s == 600);
  frugal_telemetry restarted = record(560, 700, 2.0);  // resumed from step 700
  restarted.flags = FRUGAL_TELEMETRY_RESTARTED;
  const Answer a = ask(policy, restarted);
  CHECK(a.checkpoint == FRUGAL_CKPT_NONE);
  CHECK(a.next_due_s == 1160);
  // Step 1000 passed with no full since step 0: overdue, due at once.
  const Answer full = ask(policy, record(1100, 1650, 2.0));
  CHECK(full.checkpoint == FRUGAL_CKPT_FULL);
  CHECK(full.reason == "full-checkpoint interval of 1000 steps reached since step 0");
}

TEST_CASE("Young/Daly: 117 min for a measured 300 s checkpoint and a measured 24 h MTBF") {
  CadenceConfig c;
  c.young_daly = true;  // priors: 60 s cost, 24 h MTBF
  CheckpointCadence policy = cadence(c);
  ObedientHost host;
  host.every_s = 10;
  host.stall_s = 300;  // every full stalls 300 s: the EMA moves from 60 to 300
  // Two restarts in two days: M = (24 h prior + 48 h) / 3 = 24 h at 48 h.
  // The second one restarts the timers 7001 s before the 48 h mark, so the
  // next full falls due right there.
  const double r2 = 172800 - 7000;
  host.restarts = {100000, r2};
  host.run(policy, 180000);

  std::vector<Taken> fulls;
  for (const Taken& t : host.proposals)
    if (t.kind == FRUGAL_CKPT_FULL) fulls.push_back(t);
  REQUIRE(fulls.size() > 15);
  // The fulls before the first restart come ever further apart (M grows
  // with the time survived): 60 s at first, then measured.
  CHECK(fulls[1].time_s - fulls[0].time_s < fulls.back().time_s - fulls[fulls.size() - 2].time_s);

  const auto first_after = std::find_if(fulls.begin(), fulls.end(), [&](const Taken& t) { return t.time_s > r2; });
  REQUIRE(first_after != fulls.end());
  CHECK((first_after->time_s - r2) / 60.0 == Approx(116.7).margin(0.2));
  const auto index = static_cast<std::size_t>(first_after->time_s / 10.0) - 1;
  CHECK(host.answers[index].reason == "young/daly interval 116.7 min (cost 300 s, MTBF 24.0 h) elapsed");

  // The model behind it: delta measured (prior 60 s long forgotten), M measured.
  CHECK(policy.cost_model().cost_s() == Approx(300.0).margin(0.5));
  CHECK(policy.cost_model().restarts() == 2);
  // Young's first-order interval for the same inputs: 120 min.
  CHECK(young_interval(300.0, 86400.0) / 60.0 == 120.0);
}

TEST_CASE("a preemption notice: a full when it fits in notice_safety x the notice, else a heartbeat") {
  CadenceConfig c;  // checkpoint_cost_s 60, notice_safety 0.5
  CheckpointCadence aws = cadence(c);
  frugal_telemetry notice = record(1000, 10, 2.0);
  notice.preemption_notice_s = 120;  // AWS: 60 s <= 0.5 x 120 s
  const Answer full = ask(aws, notice);
  CHECK(full.checkpoint == FRUGAL_CKPT_FULL);
  CHECK(full.reason == "preemption notice 120 s: full checkpoint (a full stalls ~60 s, within 0.50 x the notice)");
  // Only the first record of a notice: the next one, still under notice, proposes nothing.
  notice.wall_time_s = 1010;
  CHECK(ask(aws, notice).checkpoint == FRUGAL_CKPT_NONE);

  CheckpointCadence gcp = cadence(c);
  frugal_telemetry short_notice = record(1000, 10, 2.0);
  short_notice.preemption_notice_s = 30;  // GCP: 60 s > 0.5 x 30 s
  const Answer hb = ask(gcp, short_notice);
  CHECK(hb.checkpoint == FRUGAL_CKPT_HEARTBEAT);
  CHECK(hb.reason == "preemption notice 30 s: heartbeat only (a full stalls ~60 s, more than 0.50 x the notice)");
  // The notice ends (a false alarm), and a new one is an emergency again.
  CHECK(ask(gcp, record(1010, 11, 2.0)).checkpoint == FRUGAL_CKPT_NONE);
  short_notice.wall_time_s = 1020;
  CHECK(ask(gcp, short_notice).checkpoint == FRUGAL_CKPT_HEARTBEAT);

  // The measured cost decides: after 300 s fulls, even AWS's 2 minutes only allow a heartbeat.
  CheckpointCadence slow = cadence(c);
  for (int i = 1; i <= 20; ++i) {
    frugal_telemetry r = record(i * 100.0, i, 2.0);
    r.checkpoint_done = FRUGAL_CKPT_FULL;
    r.checkpoint_stall_s = 300;
    (void)ask(slow, r);
  }
  frugal_telemetry late = record(5000, 50, 2.0);
  late.preemption_notice_s = 120;
  CHECK(ask(slow, late).checkpoint == FRUGAL_CKPT_HEARTBEAT);
}

TEST_CASE("a notice decides its record even when a full is due; a notice on a restart record is not fresh") {
  CadenceConfig c;
  c.full_interval_s = 600;
  c.checkpoint_cost_s = 100;
  CheckpointCadence policy = cadence(c);
  frugal_telemetry notice = record(700, 7, 2.0);  // a full is due, but 100 s > 0.5 x 30 s
  notice.preemption_notice_s = 30;
  const Answer a = ask(policy, notice);
  CHECK(a.checkpoint == FRUGAL_CKPT_HEARTBEAT);
  CHECK(a.next_due_s == 600);  // the full is still due
  notice.wall_time_s = 710;    // the same notice: the timer speaks again
  CHECK(ask(policy, notice).checkpoint == FRUGAL_CKPT_FULL);

  CheckpointCadence fresh = cadence(c);
  frugal_telemetry restarted = record(100, 1, 2.0);
  restarted.flags = FRUGAL_TELEMETRY_RESTARTED;
  restarted.preemption_notice_s = 30;
  CHECK(ask(fresh, restarted).checkpoint == FRUGAL_CKPT_NONE);
  frugal_telemetry next = record(110, 2, 2.0);
  next.preemption_notice_s = 30;
  CHECK(ask(fresh, next).checkpoint == FRUGAL_CKPT_HEARTBEAT);
}

TEST_CASE("a full reported with no stall does not move the measured cost") {
  CheckpointCadence policy = cadence(CadenceConfig{});
  frugal_telemetry r = record(100, 1, 2.0);
  r.checkpoint_done = FRUGAL_CKPT_FULL;
  (void)ask(policy, r);
  CHECK(policy.cost_model().cost_s() == 60.0);
  r.wall_time_s = 200;
  r.checkpoint_stall_s = 160;
  (void)ask(policy, r);
  CHECK(policy.cost_model().cost_s() == Approx(90.0));
}

namespace {

std::vector<double> full_times(const ObedientHost& host) {
  std::vector<double> out;
  for (const Taken& t : host.proposals)
    if (t.kind == FRUGAL_CKPT_FULL) out.push_back(t.time_s);
  return out;
}

}  // namespace

TEST_CASE("full checkpoints by steps fall on multiples of the interval, though reported a record late") {
  CadenceConfig c;
  c.full_interval_steps = 10;
  CheckpointCadence every_step = cadence(c);
  ObedientHost one;  // a record a minute, one step each: step = time / 60
  one.steps_per_record = 1;
  one.run(every_step, 35 * 60);
  CHECK(full_times(one) == std::vector<double>{600, 1200, 1800});  // steps 10, 20, 30 (once 10, 21, 32)

  // Seven steps a record: the first record at or past each multiple.
  CheckpointCadence sevens = cadence(c);
  ObedientHost seven;
  seven.steps_per_record = 7;
  seven.run(sevens, 10 * 60);
  CHECK(full_times(seven) == std::vector<double>{120, 180, 300, 360, 480, 540, 600});  // steps 14 21 35 42 56 63 70
}

TEST_CASE("full checkpoints survive restarts more frequent than the interval") {
  // Preempted every 8 steps, resuming from the heartbeat of the last
  // record: the count once restarted each time, and no full was ever taken.
  CadenceConfig c;
  c.full_interval_steps = 10;
  CheckpointCadence policy = cadence(c);
  ObedientHost host;
  host.steps_per_record = 1;
  host.restarts = {480, 960, 1440, 1920, 2400};  // steps 8, 16, 24, 32, 40
  host.run(policy, 45 * 60);
  CHECK(full_times(host) == std::vector<double>{600, 1200, 1800, 2400});  // steps 10, 20, 30, 40

  // Seconds: fulls on multiples of full_interval_s of the job clock, restarts or not.
  CadenceConfig s;
  s.full_interval_s = 600;
  CheckpointCadence timed = cadence(s);
  ObedientHost clock_host;
  clock_host.restarts = {480, 960, 1440, 1920};
  clock_host.run(timed, 2000);
  CHECK(full_times(clock_host) == std::vector<double>{600, 1200, 1800});  // once 600, then never again
}

TEST_CASE("after restoring a heartbeat at step 15 the next full is at step 20; an asked full resumed from counts") {
  CadenceConfig c;
  c.full_interval_steps = 10;
  CheckpointCadence policy = cadence(c);
  for (int64_t s = 1; s <= 9; ++s) REQUIRE(ask(policy, record(double(s), s, 2.0)).checkpoint == 0);
  CHECK(ask(policy, record(10, 10, 2.0)).checkpoint == FRUGAL_CKPT_FULL);
  frugal_telemetry done = record(11, 11, 2.0);
  done.checkpoint_done = FRUGAL_CKPT_FULL;
  CHECK(ask(policy, done).checkpoint == 0);
  for (int64_t s = 12; s <= 17; ++s) REQUIRE(ask(policy, record(double(s), s, 2.0)).checkpoint == 0);
  // Through an exported state too: the blob carries the count.
  CheckpointCadence restored = cadence(c);
  restored.import_state(policy.export_state());
  frugal_telemetry restart = record(30, 15, 2.0);  // resumed from a heartbeat at step 15
  restart.flags = FRUGAL_TELEMETRY_RESTARTED;
  CHECK(ask(restored, restart).checkpoint == 0);
  for (int64_t s = 16; s <= 19; ++s) REQUIRE(ask(restored, record(15.0 + double(s), s, 2.0)).checkpoint == 0);
  const Answer at_20 = ask(restored, record(35, 20, 2.0));
  CHECK(at_20.checkpoint == FRUGAL_CKPT_FULL);  // once 25
  CHECK(at_20.reason == "full-checkpoint interval of 10 steps reached since step 10");

  // The job dies while that full is written and resumes from it: it counts.
  frugal_telemetry from_full = record(50, 20, 2.0);
  from_full.flags = FRUGAL_TELEMETRY_RESTARTED;
  CHECK(ask(restored, from_full).checkpoint == 0);
  for (int64_t s = 21; s <= 29; ++s) REQUIRE(ask(restored, record(30.0 + double(s), s, 2.0)).checkpoint == 0);
  CHECK(ask(restored, record(60, 30, 2.0)).checkpoint == FRUGAL_CKPT_FULL);
}

TEST_CASE("an overdue full is taken at the next opportunity, once") {
  CadenceConfig c;
  c.full_interval_steps = 10;
  CheckpointCadence policy = cadence(c);
  CHECK(ask(policy, record(1, 5, 2.0)).checkpoint == 0);
  // Records skip from step 5 to 25: multiples 10 and 20 passed; one full covers them.
  CHECK(ask(policy, record(2, 25, 2.0)).checkpoint == FRUGAL_CKPT_FULL);
  frugal_telemetry done = record(3, 26, 2.0);
  done.checkpoint_done = FRUGAL_CKPT_FULL;
  CHECK(ask(policy, done).checkpoint == 0);
  CHECK(ask(policy, record(4, 29, 2.0)).checkpoint == 0);
  CHECK(ask(policy, record(5, 30, 2.0)).checkpoint == FRUGAL_CKPT_FULL);

  // Restored past a multiple without a full: due on the restart record itself.
  CheckpointCadence fresh = cadence(c);
  CHECK(ask(fresh, record(1, 5, 2.0)).checkpoint == 0);
  frugal_telemetry restart = record(100, 23, 2.0);
  restart.flags = FRUGAL_TELEMETRY_RESTARTED;
  const Answer a = ask(fresh, restart);
  CHECK(a.checkpoint == FRUGAL_CKPT_FULL);
  CHECK(a.reason == "full-checkpoint interval of 10 steps reached since step 0");
}
