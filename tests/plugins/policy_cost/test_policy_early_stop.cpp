// early_stop in process: patience over evaluations, min_step, the train
// metric, relative min_delta, and stopping for good.
#include <catch2/catch.hpp>

#include <vector>

#include "plugin/early_stop.hpp"
#include "policy_test_support.hpp"

using namespace frugal::test;
using frugal::policy::DeltaMode;
using frugal::policy::plugin::EarlyStop;
using frugal::policy::plugin::EarlyStopConfig;
using frugal::policy::plugin::Metric;

namespace {

// Every 5th record (steps 5, 10, ...) carries the next eval loss.
std::vector<Answer> run_evals(EarlyStop& p, const std::vector<double>& evals, int extra_records = 0) {
  std::vector<Answer> out;
  int step = 0;
  for (std::size_t e = 0; e < evals.size() + static_cast<std::size_t>(extra_records); ++e) {
    for (int k = 0; k < 5; ++k) {
      ++step;
      frugal_telemetry r = record(step * 10.0, step, 3.0);
      if (k == 4 && e < evals.size()) {
        r.flags = FRUGAL_TELEMETRY_EVAL_LOSS;
        r.eval_loss = evals[e];
      }
      out.push_back(ask(p, r));
    }
  }
  return out;
}

}  // namespace

TEST_CASE("patience spent: stop = PLATEAU on the evaluation that spends it, naming the best, for good") {
  EarlyStopConfig c;
  c.patience = 3;
  EarlyStop p{c};
  const auto answers = run_evals(p, {2.0, 1.8, 1.7, 1.75, 1.71, 1.70, 1.2}, 2);
  // Evaluations at steps 5, 10, ..., 35: best 1.7 at step 15, then 3 without improvement.
  for (int i = 0; i < 29; ++i) REQUIRE(answers[i].stop == FRUGAL_STOP_NONE);
  for (int i = 0; i < 29; ++i) REQUIRE(answers[i].reason.empty());
  CHECK(answers[29].stop == FRUGAL_STOP_PLATEAU);  // step 30
  CHECK(answers[29].reason == "eval loss did not improve by more than 0.0000 in 3 evaluations: best 1.7000 at step 15");
  // A later improvement (1.2 at step 35) does not undo the stop.
  for (std::size_t i = 29; i < answers.size(); ++i) REQUIRE(answers[i].stop == FRUGAL_STOP_PLATEAU);
  CHECK(answers.back().reason == answers[29].reason);
  CHECK(p.stopped());
}

TEST_CASE("min_step: patience spent early stops only once the step reaches min_step") {
  EarlyStopConfig c;
  c.patience = 2;
  c.min_step = 42;
  EarlyStop p{c};
  const auto answers = run_evals(p, {1.0, 1.1, 1.2}, 8);  // spent at step 15
  for (int i = 0; i < 41; ++i) REQUIRE(answers[i].stop == FRUGAL_STOP_NONE);
  CHECK(answers[41].stop == FRUGAL_STOP_PLATEAU);  // step 42, a record without an evaluation
  CHECK(answers[41].reason == "eval loss did not improve by more than 0.0000 in 2 evaluations: best 1.0000 at step 5");
}

TEST_CASE("metric train counts every record; relative min_delta scales with the best") {
  EarlyStopConfig c;
  c.metric = Metric::train;
  c.patience = 4;
  c.min_delta = 0.01;
  c.mode = DeltaMode::relative;
  EarlyStop p{c};
  // 10.0, then improvements of 0.2% a step: four of them stay within 1% of the best.
  std::vector<Answer> answers;
  double loss = 10.0;
  for (int step = 1; step <= 6; ++step) {
    answers.push_back(ask(p, record(step, step, loss)));
    loss *= 0.998;
  }
  CHECK(answers[3].stop == FRUGAL_STOP_NONE);
  CHECK(answers[4].stop == FRUGAL_STOP_PLATEAU);  // step 5: 4 records since the best at step 1
  CHECK(answers[4].reason ==
        "train loss did not improve by more than 0.0100 x best in 4 records: best 10.0000 at step 1");

  // Eval records do not count for metric train beyond being records; the
  // eval loss itself is ignored.
  EarlyStop q{c};
  frugal_telemetry r = record(1, 1, 5.0);
  r.flags = FRUGAL_TELEMETRY_EVAL_LOSS;
  r.eval_loss = 0.1;
  (void)ask(q, r);
  CHECK(q.tracker().best() == 5.0);
}

TEST_CASE("metric eval ignores records without an evaluation") {
  EarlyStopConfig c;
  c.patience = 1;
  EarlyStop p{c};
  for (int step = 1; step < 1000; ++step) REQUIRE(ask(p, record(step, step, 1.0 + step)).stop == FRUGAL_STOP_NONE);
  CHECK_FALSE(p.tracker().has_best());
}

TEST_CASE("metric train skips records flagged FRUGAL_TELEMETRY_NO_LOSS") {
  EarlyStopConfig c;
  c.metric = Metric::train;
  c.patience = 2;
  EarlyStop p{c};
  for (int step = 1; step <= 10; ++step) {
    frugal_telemetry r = record(step, step, 0.0);  // the loss as the scheduler passes it: 0
    r.flags = FRUGAL_TELEMETRY_NO_LOSS;
    REQUIRE(ask(p, r).stop == FRUGAL_STOP_NONE);
  }
  CHECK_FALSE(p.tracker().has_best());
  CHECK(p.tracker().stale() == 0);
  (void)ask(p, record(11, 11, 4.0));
  CHECK(p.tracker().best() == 4.0);
  CHECK(p.tracker().best_step() == 11);
}
