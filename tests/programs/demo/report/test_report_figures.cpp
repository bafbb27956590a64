// compute_report on the synthetic runs: every figure against the value
// worked out by hand from synthetic_runs.cpp.
#include <catch2/catch.hpp>

#include <cmath>

#include "curves.hpp"
#include "report.hpp"
#include "synthetic_runs.hpp"

using namespace frugal_demo;
using demo_report_test::TempDir;

namespace {

struct Runs {
  TempDir tmp;
  RunMetrics baseline, frugal;
  Runs() {
    demo_report_test::write_baseline_run(tmp.path() / "baseline");
    demo_report_test::write_frugal_run(tmp.path() / "frugal");
    baseline = read_run_metrics(tmp.path() / "baseline");
    frugal = read_run_metrics(tmp.path() / "frugal");
  }
};

}  // namespace

TEST_CASE("the baseline's figures") {
  Runs runs;
  const auto b = compute_report(runs.baseline, runs.frugal).baseline;
  CHECK(b.name == "baseline");
  CHECK(b.steps == 6);
  CHECK(b.attempts == 1);
  CHECK(b.real_tokens == 360);
  CHECK(b.slots == 600);
  CHECK(b.processed_tokens == 360);
  CHECK(b.padding_waste == Approx(0.4));
  CHECK(b.clock_s == 62.0);  // the finish event, after the last step
  CHECK(b.tokens_per_s == Approx(360.0 / 62.0));
  CHECK(!b.time_scale);
  CHECK(!b.tokens_per_real_s);
  CHECK(b.train_loss_start == Approx((6 + 5 + 4 + 3 + 2) / 5.0));
  CHECK(b.train_loss_end == Approx((5 + 4 + 3 + 2 + 1) / 5.0));
  CHECK(b.eval_loss_first == Approx(4.5));
  CHECK(b.eval_loss_final == Approx(3.0));
  CHECK(b.eval_clock_final_s == 61.0);
  CHECK(b.checkpoints_full == 2);
  CHECK(b.checkpoints_heartbeat == 0);
  CHECK(b.stall_total_s == Approx(4.0));
  CHECK(b.stall_mean_s == Approx(2.0));
  CHECK(b.preempt_notices == 0);
  CHECK(b.kills == 0);
  CHECK(b.preemptions.empty());
  CHECK(!b.mean_steps_lost);
  CHECK(b.resume.replayed_steps == 0);
  CHECK(!b.resume.exact);
  CHECK(b.has_ledger);
  CHECK(b.dollars.dollars == Approx(3.1));
  CHECK(b.dollars.reserved_dollars == Approx(3.1));
  CHECK(b.dollars.stall_dollars == Approx(0.6));
  CHECK(!b.experts_step);
  CHECK(b.expert_balance.empty());
  CHECK(!b.worst_max_over_mean);
}

TEST_CASE("the frugal run's figures: tokens, losses, checkpoints, dollars") {
  Runs runs;
  const auto f = compute_report(runs.baseline, runs.frugal).frugal;
  CHECK(f.steps == 8);
  CHECK(f.attempts == 2);
  CHECK(f.real_tokens == 8 * 90);  // replayed steps count once
  CHECK(f.slots == 800);
  CHECK(f.processed_tokens == 10 * 90);
  CHECK(f.padding_waste == Approx(0.1));
  CHECK(f.clock_s == 57.0);
  CHECK(f.tokens_per_s == Approx(720.0 / 57.0));
  CHECK(f.time_scale == 2.0);
  CHECK(f.tokens_per_real_s == Approx(720.0 / (57.0 / 2.0)));
  CHECK(f.train_loss_start == Approx((6 + 5 + 4 + 3 + 2.5) / 5.0));
  CHECK(f.train_loss_end == Approx((3 + 2.5 + 2 + 1.5 + 1) / 5.0));
  CHECK(f.eval_loss_first == Approx(4.0));
  CHECK(f.eval_loss_final == Approx(2.0));
  CHECK(f.checkpoints_full == 2);
  CHECK(f.checkpoints_heartbeat == 1);
  CHECK(f.stall_total_s == Approx(2.5));
  CHECK(f.stall_mean_s == Approx(2.5 / 3.0));
  CHECK(f.dollars.dollars == Approx(1.2));
  CHECK(f.dollars.spot_dollars == Approx(1.0));
  CHECK(f.dollars.lost_dollars == Approx(0.2));
  CHECK(f.dollars.restarts == 1);
  REQUIRE(f.run_info.size() == 2);
}

TEST_CASE("the frugal run's preemption, work lost and resume check") {
  Runs runs;
  const auto f = compute_report(runs.baseline, runs.frugal).frugal;
  CHECK(f.preempt_notices == 1);
  CHECK(f.kills == 1);
  CHECK(f.restarts == 1);
  CHECK(f.emergency_saves == 0);
  REQUIRE(f.preemptions.size() == 1);
  const auto& p = f.preemptions[0];
  CHECK(p.attempt == 0);
  CHECK(p.notice_clock_s == 26.0);
  CHECK(p.end_clock_s == 28.0);
  CHECK(p.signal == "SIGKILL");
  CHECK(p.last_step == 5);
  CHECK(p.restored_step == 3);
  CHECK(p.checkpoint_step == 3);
  CHECK(p.checkpoint_clock_s == 15.0);
  CHECK(p.steps_lost == 2);
  CHECK(p.seconds_lost == Approx(13.0));
  CHECK(f.mean_steps_lost == Approx(2.0));
  CHECK(f.mean_seconds_lost == Approx(13.0));
  CHECK(f.resume.replayed_steps == 2);
  CHECK(f.resume.max_abs_loss_diff == 0.0);
  CHECK(f.resume.restored_steps == std::vector<std::int64_t>{3});
  CHECK(f.resume.exact);
  CHECK(f.resume.from_checkpointed_step);
}

TEST_CASE("a replayed step with another loss shows in the resume check") {
  Runs runs;
  runs.frugal.resumes[1].loss_after = 2.75;
  const auto f = compute_report(runs.baseline, runs.frugal).frugal;
  CHECK(f.resume.max_abs_loss_diff == Approx(0.25));
  CHECK(!f.resume.exact);
  runs.frugal.steps[2].checkpoint.clear();  // step 3 was never saved
  CHECK(!compute_report(runs.baseline, runs.frugal).frugal.resume.from_checkpointed_step);
}

TEST_CASE("without a resume event, work lost runs from the last checkpoint before the kill") {
  Runs runs;
  std::erase_if(runs.frugal.events, [](const EventRecord& e) { return e.event == "resume"; });
  const auto f = compute_report(runs.baseline, runs.frugal).frugal;
  REQUIRE(f.preemptions.size() == 1);
  CHECK(!f.preemptions[0].restored_step);
  CHECK(f.preemptions[0].checkpoint_step == 3);  // full at 3 is after the heartbeat at 2
  CHECK(f.preemptions[0].seconds_lost == Approx(13.0));
  CHECK(!f.resume.from_checkpointed_step);
}

TEST_CASE("expert load balance at the last recorded step") {
  Runs runs;
  const auto f = compute_report(runs.baseline, runs.frugal).frugal;
  REQUIRE(f.experts_step == 6);
  REQUIRE(f.expert_balance.size() == 2);
  // Layer 0: loads 10, 20, 30, 40: mean 25, max 40, population stddev
  // sqrt(125). Layer 1: even.
  CHECK(f.expert_balance[0].layer == 0);
  CHECK(f.expert_balance[0].experts == 4);
  CHECK(f.expert_balance[0].max_over_mean == Approx(1.6));
  CHECK(f.expert_balance[0].cv == Approx(std::sqrt(125.0) / 25.0));
  CHECK(f.expert_balance[1].max_over_mean == Approx(1.0));
  CHECK(f.expert_balance[1].cv == Approx(0.0).margin(1e-12));
  CHECK(f.worst_max_over_mean == Approx(1.6));
  CHECK(f.mean_cv == Approx(std::sqrt(125.0) / 25.0 / 2.0));
}

TEST_CASE("frugal against the baseline: equal time, dollars to the baseline's loss, ratios") {
  Runs runs;
  const auto r = compute_report(runs.baseline, runs.frugal);
  const auto& s = r.savings;
  CHECK(r.equal_time_clock_s == 57.0);
  // Baseline evals (31, 4.5) and (61, 3.0): at 57, 4.5 - 1.5 * 26 / 30.
  CHECK(r.baseline.eval_loss_at_equal_time == Approx(3.2));
  // Frugal's last eval is at 56: held flat to 57.
  CHECK(r.frugal.eval_loss_at_equal_time == Approx(2.0));
  CHECK(s.eval_loss_delta_at_equal_time == Approx(-1.2));
  CHECK(s.dollars_ratio == Approx(1.2 / 3.1));
  CHECK(s.dollars_saved == Approx(1.9));
  CHECK(s.tokens_per_s_ratio == Approx((720.0 / 57.0) / (360.0 / 62.0)));
  CHECK(s.padding_waste_delta == Approx(-0.3));
  CHECK(s.target_loss == Approx(3.0));
  // Frugal evals (16, 4.0) and (46, 2.8): 3.0 at 16 + 30 * 1.0 / 1.2.
  CHECK(s.frugal_clock_to_target_s == Approx(41.0));
  CHECK(s.frugal_dollars_to_target == Approx(0.82));   // 0.02 $/s, between the steps at 40 and 45 s
  CHECK(s.baseline_dollars_to_target == Approx(3.0));  // its last step's total
  CHECK(s.dollars_to_target_ratio == Approx(0.82 / 3.0));
}

TEST_CASE("a frugal run that never reaches the baseline's loss has no dollars to it") {
  Runs runs;
  for (auto& e : runs.frugal.evals) e.eval_loss += 5.0;
  const auto s = compute_report(runs.baseline, runs.frugal).savings;
  CHECK(s.target_loss == Approx(3.0));
  CHECK(!s.frugal_clock_to_target_s);
  CHECK(!s.frugal_dollars_to_target);
  CHECK(!s.dollars_to_target_ratio);
}

TEST_CASE("curve readings: linear inside, held flat outside, first reach") {
  const Curve c{{0.0, 10.0}, {10.0, 5.0}, {20.0, 6.0}, {30.0, 2.0}};
  CHECK(value_at(c, -5.0) == 10.0);
  CHECK(value_at(c, 5.0) == Approx(7.5));
  CHECK(value_at(c, 25.0) == Approx(4.0));
  CHECK(value_at(c, 99.0) == 2.0);
  CHECK(!value_at(Curve{}, 1.0));
  CHECK(first_reach(c, 5.5) == Approx(9.0));
  CHECK(first_reach(c, 4.0) == Approx(25.0));
  CHECK(first_reach(c, 11.0) == 0.0);
  CHECK(!first_reach(c, 1.0));
}
