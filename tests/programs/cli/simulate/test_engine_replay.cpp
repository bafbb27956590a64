// Trace replay on tiny hand-built traces, with the cost, the wall time and
// the lost time worked out by hand (a real scheduler with no policies:
// only the core's own rules decide, e.g. the heartbeat on a notice).
#include <catch2/catch.hpp>

#include "sim_fixture.hpp"
#include "trace_readers.hpp"

using frugal::simulate::parse_trace;
using frugal::simulate::RunResult;
using frugal::simulate::Trace;
using frugal::simulate::TraceFormat;
using frugal::test::job_json;
using frugal::test::parse_test_job;
using frugal::test::run_plan;

namespace {

constexpr const char* kSpotNoPolicies = R"([{"name": "spot", "resource": "spot"}])";

Trace trace_of(const std::string& text) { return parse_trace(text, "t", TraceFormat::kAuto, {}); }

void check_split(const RunResult& r, double productive_s, double stall_s, double lost_s) {
  CHECK(r.productive_s == Approx(productive_s));
  CHECK(r.stall_s == Approx(stall_s).margin(1e-9));
  CHECK(r.lost_s == Approx(lost_s).margin(1e-9));
  CHECK(r.ledger.productive_s == Approx(productive_s));
  CHECK(r.ledger.lost_s == Approx(lost_s).margin(1e-9));
}

}  // namespace

TEST_CASE("replay: reserved capacity costs price x nodes x hours and wastes nothing") {
  const auto job = parse_test_job(job_json(10, R"([{"name": "r", "resource": "reserved"}])"));
  const RunResult r = run_plan(job, 0, nullptr);
  CHECK(r.finished);
  CHECK(r.wall_s == Approx(36000.0));
  CHECK(r.dollars == Approx(300.0));
  CHECK(r.ledger.dollars == Approx(300.0));
  CHECK(r.reserved_dollars == Approx(300.0));
  CHECK(r.useful_gpu_hours / r.fleet_gpu_hours == Approx(1.0));
  CHECK(r.records == 11);  // t = 0, every hour, the end
  check_split(r, 36000.0, 0.0, 0.0);
}

TEST_CASE("replay: a SkyPilot outage loses the work since the start, waits unpaid, restarts paid") {
  // 3 h of work on 1 spot node at $10/h; spot is gone from 2 h to 3 h (gap 3 of 8, 1 h each).
  const auto job = parse_test_job(job_json(3, kSpotNoPolicies));
  const Trace trace = trace_of(R"({"metadata": {"gap_seconds": 3600}, "data": [0, 0, 1, 0, 0, 0, 0, 0]})");
  const RunResult r = run_plan(job, 0, &trace);
  CHECK(r.finished);
  CHECK(r.preemptions == 1);
  CHECK(r.ledger.restarts == 1);
  // Preempted at 7200 (2 h lost), back at 10800, 600 s restart, then the 3 h again.
  CHECK(r.wall_s == Approx(10800.0 + 600.0 + 10800.0));
  CHECK(r.dollars == Approx(10.0 * (7200.0 + 600.0 + 10800.0) / 3600.0));
  check_split(r, 10800.0, 0.0, 7200.0 + 3600.0 + 600.0);
}

TEST_CASE("replay: a preemption notice gets an emergency heartbeat, which keeps the work before it") {
  // As above with a 120 s notice: the core forces a heartbeat (60 s) at 7080 s.
  const auto job = parse_test_job(job_json(
      3, kSpotNoPolicies, R"("preemption": {"spot_mtbf_node_h": 0, "capacity_wait_mean_s": 0, "notice_s": 120},)"));
  const Trace trace = trace_of(R"({"metadata": {"gap_seconds": 3600}, "data": [0, 0, 1, 0, 0, 0, 0, 0]})");
  const RunResult r = run_plan(job, 0, &trace);
  CHECK(r.checkpoints_heartbeat == 1);
  // Kept: 7080 s of training. Lost: 60 s after the heartbeat, the 1 h wait, the restart.
  // Then 10800 - 7080 = 3720 s more from 11400 s.
  CHECK(r.wall_s == Approx(11400.0 + 3720.0));
  CHECK(r.dollars == Approx(10.0 * (7200.0 + 600.0 + 3720.0) / 3600.0));
  check_split(r, 10800.0, 60.0, 60.0 + 3600.0 + 600.0);
}

TEST_CASE("replay: spot prices from a trace are paid as a step function, wrapping at the period") {
  // $10, $20, $5 an hour, repeating every 3 h; 5 h of work, never preempted.
  const auto job = parse_test_job(job_json(5, kSpotNoPolicies));
  const Trace trace = trace_of("time_s,available,spot_price\n0,1,10\n3600,1,20\n7200,1,5\n");
  std::vector<frugal::simulate::TimelinePoint> timeline;
  const RunResult r = run_plan(job, 0, &trace, 1, &timeline);
  CHECK(r.dollars == Approx(10 + 20 + 5 + 10 + 20));
  CHECK(r.spot_dollars == Approx(65.0));
  REQUIRE(timeline.size() == 6);
  CHECK(timeline[2].dollars == Approx(30.0));  // after 2 h
}

TEST_CASE("replay: a job that starts while spot is gone waits for capacity first") {
  const auto job = parse_test_job(job_json(1, kSpotNoPolicies));
  const Trace trace = trace_of("0,0\n1800,1\n100000,1\n");
  const RunResult r = run_plan(job, 0, &trace);
  CHECK(r.preemptions == 1);
  CHECK(r.wall_s == Approx(1800.0 + 600.0 + 3600.0));
  CHECK(r.dollars == Approx(10.0 * (600.0 + 3600.0) / 3600.0));
  check_split(r, 3600.0, 0.0, 2400.0);
}

TEST_CASE("replay: padding makes a plan process more tokens for the same work") {
  const auto job = parse_test_job(job_json(4, R"([{"name": "packed", "resource": "reserved"},
    {"name": "padded", "resource": "reserved", "padding_fraction": 0.5}])"));
  const RunResult packed = run_plan(job, 0, nullptr);
  const RunResult padded = run_plan(job, 1, nullptr);
  CHECK(padded.wall_s == Approx(2 * packed.wall_s));
  CHECK(padded.dollars == Approx(2 * packed.dollars));
  // Utilisation counts the plan's own tokens: both kept their fleet busy.
  CHECK(padded.useful_gpu_hours / padded.fleet_gpu_hours == Approx(1.0));
}

TEST_CASE("replay: more nodes run faster by the scaling efficiency") {
  const auto job = parse_test_job(job_json(8, R"([{"name": "one", "resource": "reserved"},
    {"name": "four", "resource": "reserved", "nodes": 4}])"));
  const RunResult one = run_plan(job, 0, nullptr);
  const RunResult four = run_plan(job, 1, nullptr);
  // 4 nodes = 2 doublings at 0.9 each.
  CHECK(four.wall_s == Approx(one.wall_s / (4 * 0.9 * 0.9)));
  CHECK(four.useful_gpu_hours / four.fleet_gpu_hours == Approx(0.81));
}
