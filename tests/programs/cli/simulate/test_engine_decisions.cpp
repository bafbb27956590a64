// The engine obeys decisions: checkpoints stall and are reported, a new
// resource class or node count moves the job (saving its work first), stop
// ends the run, next_due_s brings a record, and a decision loop or a failing
// policy is an error, not a hang.
#include <catch2/catch.hpp>

#include <functional>
#include <stdexcept>

#include "scheduler_source.hpp"
#include "sim_fixture.hpp"

using frugal::simulate::DecisionSource;
using frugal::simulate::RunResult;
using frugal::test::job_json;
using frugal::test::parse_test_job;
using frugal::test::run_plan;

namespace {

// A real scheduler whose decisions a test may rewrite (e.g. "reserved from
// 4 h on"), so the engine's moves are checked against the core's ledger.
class RewritingSource final : public DecisionSource {
 public:
  using Rewrite = std::function<void(const frugal_telemetry&, frugal_decision&)>;
  RewritingSource(const frugal::simulate::PlanConfig& config, Rewrite rewrite)
      : inner_(frugal::test::sim_context(), config), rewrite_(std::move(rewrite)) {}
  void begin_run() override { inner_.begin_run(); }
  const frugal_decision& step(const frugal_telemetry& t) override {
    decision_ = inner_.step(t);
    rewrite_(t, decision_);
    return decision_;
  }
  bool ledger(frugal_cost_ledger& out) const override { return inner_.ledger(out); }

 private:
  frugal::simulate::SchedulerSource inner_;
  Rewrite rewrite_;
  frugal_decision decision_{};
};

RunResult run_rewritten(const frugal::simulate::Job& job, RewritingSource::Rewrite rewrite) {
  const frugal::simulate::PlanConfig config(job, job.plans[0]);
  RewritingSource source(config, std::move(rewrite));
  const auto result =
      frugal::simulate::simulate_run(frugal::simulate::make_run_setup(job, job.plans[0], nullptr), source, 1);
  INFO(frugal::simulate::check_conservation(result));
  CHECK(frugal::simulate::check_conservation(result).empty());
  return result;
}

}  // namespace

TEST_CASE("decisions: checkpoints stall for their cost and are booked as stall") {
  const auto job = parse_test_job(job_json(10, R"([{"name": "r", "resource": "reserved",
    "policies": [{"name": "probe_policy", "options": {"checkpoint_every": 3, "checkpoint_kind": 2}}]}])"));
  const RunResult r = run_plan(job, 0, nullptr);
  CHECK(r.finished);
  CHECK(r.checkpoints_full > 0);
  CHECK(r.ledger.checkpoints_full == r.checkpoints_full);
  CHECK(r.stall_s == Approx(300.0 * static_cast<double>(r.checkpoints_full)));
  CHECK(r.wall_s == Approx(36000.0 + r.stall_s));
  CHECK(r.dollars == Approx(30.0 * r.wall_s / 3600.0));
}

TEST_CASE("decisions: the first decision picks where to start, at no cost") {
  const auto job = parse_test_job(job_json(2, R"([{"name": "p", "resource": "spot", "nodes": 1,
    "policies": [{"name": "probe_policy", "options": {"resource": 2, "nodes": 2}}]}])"));
  const RunResult r = run_plan(job, 0, nullptr);
  CHECK(r.moves == 0);
  CHECK(r.reserved_dollars == Approx(r.dollars));
  CHECK(r.wall_s == Approx(7200.0 / (2 * 0.9)));
}

TEST_CASE("decisions: moving to reserved saves the work with a heartbeat, then restarts there") {
  const auto job = parse_test_job(job_json(10, R"([{"name": "p", "resource": "spot"}])"));
  const RunResult r = run_rewritten(job, [](const frugal_telemetry& t, frugal_decision& d) {
    if (t.wall_time_s >= 4 * 3600.0) d.resource = FRUGAL_RESOURCE_RESERVED;
  });
  CHECK(r.moves == 1);
  CHECK(r.checkpoints_heartbeat == 1);
  CHECK(r.wall_s == Approx(36000.0 + 60.0 + 600.0));
  CHECK(r.spot_dollars == Approx(10.0 * (4 * 3600.0 + 60.0) / 3600.0));
  CHECK(r.reserved_dollars == Approx(30.0 * (600.0 + 6 * 3600.0) / 3600.0));
  CHECK(r.lost_s == Approx(600.0));
  CHECK(r.stall_s == Approx(60.0));
  CHECK(r.ledger.restarts == 1);
}

TEST_CASE("decisions: scaling out moves the job and speeds it up") {
  const auto job = parse_test_job(job_json(10, R"([{"name": "p", "resource": "reserved"}])"));
  const RunResult r = run_rewritten(job, [](const frugal_telemetry& t, frugal_decision& d) {
    if (t.wall_time_s >= 2 * 3600.0) d.target_nodes = 2;
  });
  CHECK(r.moves == 1);
  // 2 h on one node, a 60 s heartbeat, a 600 s restart, then 8 node-hours of work at 1.8x.
  CHECK(r.wall_s == Approx(7200.0 + 60.0 + 600.0 + 8 * 3600.0 / 1.8));
  CHECK(r.dollars == Approx(30.0 * (7200.0 + 60.0) / 3600.0 + 2 * 30.0 * (600.0 + 8 * 3600.0 / 1.8) / 3600.0));
}

TEST_CASE("decisions: stop ends the run where it is") {
  const auto job = parse_test_job(job_json(10, R"([{"name": "p", "resource": "reserved",
    "policies": [{"name": "probe_policy", "options": {"stop_at_step": 100}}]}])"));
  const RunResult r = run_plan(job, 0, nullptr);
  CHECK_FALSE(r.finished);
  CHECK(r.stop_reason == FRUGAL_STOP_TARGET);
  // 100 steps of 100,000 tokens at 8,000 tokens/s = 1250 s; the first record at or after it is at 1 h.
  CHECK(r.wall_s == Approx(3600.0));
}

TEST_CASE("decisions: next_due_s brings a record when it falls due") {
  const auto job = parse_test_job(job_json(2, R"([{"name": "p", "resource": "reserved",
    "policies": [{"name": "probe_policy", "options": {"due_in_s": 600}}]}])"));
  const RunResult r = run_plan(job, 0, nullptr);
  CHECK(r.records == 13);  // t = 0 and every 600 s to 7200 s
}

TEST_CASE("decisions: a policy's error stops the simulation with the policy named") {
  const auto job = parse_test_job(job_json(10, R"([{"name": "p", "resource": "reserved",
    "policies": [{"name": "probe_policy", "options": {"fail_at_record": 3}}]}])"));
  const frugal::simulate::PlanConfig config(job, job.plans[0]);
  frugal::simulate::SchedulerSource source(frugal::test::sim_context(), config);
  CHECK_THROWS_WITH(
      frugal::simulate::simulate_run(frugal::simulate::make_run_setup(job, job.plans[0], nullptr), source, 1),
      Catch::Contains("policy 'probe_policy'"));
}

TEST_CASE("decisions: checkpoints that take no time, asked for forever, are a loop, not a hang") {
  auto job = parse_test_job(job_json(10, R"([{"name": "p", "resource": "reserved"}])"));
  job.checkpoint_full_s = 0.0;
  CHECK_THROWS_WITH(run_rewritten(job,
                                  [](const frugal_telemetry& t, frugal_decision& d) {
                                    if (t.wall_time_s >= 3600.0) d.checkpoint = FRUGAL_CKPT_FULL;
                                  }),
                    Catch::Contains("plan 'p': the decisions do not let time advance at 3600 s"));
}

TEST_CASE("decisions: a run that cannot finish is cut at the wall-time limit") {
  auto job = parse_test_job(job_json(
      10, R"([{"name": "p", "resource": "spot"}])",
      R"("preemption": {"spot_mtbf_node_h": 0.5, "capacity_wait_mean_s": 0, "notice_s": 0}, "max_wall_h": 50,)"));
  const RunResult r = run_plan(job, 0, nullptr);
  CHECK(r.cut);
  CHECK_FALSE(r.finished);
  CHECK(r.wall_s == Approx(50 * 3600.0).epsilon(0.01));
}
