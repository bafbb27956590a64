// The limits that keep a simulation finite: a job whose numbers (each in
// its documented range) call for more events than a run or a plan may
// simulate is refused before anything runs, naming the fields, the events
// and the limit; a run that goes past the limit anyway fails instead of
// running for ever; the events are counted for the progress bar.
#include <catch2/catch.hpp>

#include <atomic>

#include "event_budget.hpp"
#include "progress_bar.hpp"
#include "scheduler_source.hpp"
#include "sim_fixture.hpp"
#include "simulation.hpp"
#include "trace_readers.hpp"

using frugal::simulate::check_event_budget;
using frugal::simulate::estimate_run_events;
using frugal::simulate::kMaxEventsPerPlan;
using frugal::simulate::kMaxEventsPerRun;
using frugal::simulate::MonteCarloOptions;
using frugal::simulate::ProgressBar;
using frugal::test::input_error_of;
using frugal::test::job_json;
using frugal::test::parse_test_job;
using frugal::test::sim_context;

namespace {

// Issue 19's job: every field in range, 1e27 s of job clock at 1e-9 tokens/s.
const char* kEndless = R"({"name": "endless", "gpus_per_node": 8, "work": {"tokens": 1e18},
  "throughput": {"tokens_per_gpu_s": 1e-9}, "checkpoint": {"full_s": 300, "heartbeat_s": 30},
  "prices": {"spot": 10, "reserved": 30}})";

std::string simulate_error(const frugal::simulate::Job& job, uint64_t runs) {
  MonteCarloOptions options;
  options.runs = runs;
  options.threads = 1;
  return input_error_of([&] { frugal::simulate::simulate(sim_context(), job, nullptr, options); });
}

}  // namespace

TEST_CASE("event budget: a job inside every range that would never end is refused before it runs") {
  const auto job = parse_test_job(kEndless);
  const std::string error = simulate_error(job, 1);
  INFO(error);
  CHECK_THAT(error, Catch::Contains("plan 'reserved': one run would simulate about 3.47e+22 events"));
  CHECK_THAT(error, Catch::Contains("throughput.tokens_per_gpu_s"));
  CHECK_THAT(error, Catch::Contains("1.25e+26 s of job clock"));
  CHECK_THAT(error, Catch::Contains("3.47e+22 records at telemetry_interval_s 3600"));
  CHECK_THAT(error, Catch::Contains("more than the limit of 1e+07 per run"));
}

TEST_CASE("event budget: the estimate counts ticks, Monte-Carlo preemptions and checkpoint timers") {
  // 10 h of work on one node, a preemption every 2 h, a heartbeat every 30 min.
  const auto job = parse_test_job(job_json(10, R"([{"name": "hb", "resource": "spot",
    "policies": [{"name": "checkpoint_cadence", "options": {"heartbeat_interval_s": 1800}}]}])",
                                           R"("preemption": {"spot_mtbf_node_h": 2},)"));
  const auto e = estimate_run_events(job, job.plans[0], nullptr);
  CHECK(e.horizon_s == Approx(36000.0));
  CHECK(e.ticks == Approx(10.0));
  CHECK(e.preemptions == Approx(5.0));
  CHECK(e.checkpoints == Approx(20.0));
  CHECK(e.total() == Approx(10.0 + 2 * 5.0 + 20.0));
}

TEST_CASE("event budget: too many runs of a plan are refused with the most --runs allowed") {
  // 1e4 one-second ticks per run: 1e7 runs would be 1e11 events.
  const auto job = parse_test_job(R"({"name": "short", "gpus_per_node": 8, "work": {"tokens": 8e7},
    "throughput": {"tokens_per_gpu_s": 1000}, "checkpoint": {"full_s": 300, "heartbeat_s": 30},
    "prices": {"spot": 10, "reserved": 30}, "telemetry_interval_s": 1, "plans": [{"name": "p", "resource": "reserved"}]})");
  const double per_run = estimate_run_events(job, job.plans[0], nullptr).total();
  REQUIRE(per_run == Approx(1e4));
  const std::string error = simulate_error(job, 10'000'000);
  INFO(error);
  CHECK_THAT(error, Catch::Contains("plan 'p': 10000000 runs x about 1e+04 events per run = 1e+11 simulated events"));
  CHECK_THAT(error,
             Catch::Contains("more than the limit of 1e+10 per plan; lower --runs (at most 1000000 for this job)"));
  CHECK(input_error_of([&] { check_event_budget(job, nullptr, 1'000'000); }).empty());
}

TEST_CASE("event budget: a trace with a tiny period is refused for the preemptions it would replay") {
  // gap_seconds 1e-300: the trace wraps around 1e304 times in a 100-hour job.
  const auto trace = frugal::simulate::parse_trace(R"({"metadata": {"gap_seconds": 1e-300}, "data": [0, 1]})",
                                                   "tiny.json", frugal::simulate::TraceFormat::kAuto, {});
  const auto job = parse_test_job(job_json(100, R"([{"name": "s", "resource": "spot"}])"));
  const std::string error = input_error_of([&] { check_event_budget(job, &trace, 1); });
  INFO(error);
  CHECK_THAT(error, Catch::Contains("preemptions from the trace (period 2e-300 s)"));
  CHECK_THAT(error, Catch::Contains("more than the limit of 1e+07 per run"));
}

TEST_CASE("event budget: a run past the event limit fails and says where, the events are counted") {
  // A policy that asks to be woken every second: 3600 records an hour.
  const auto job = parse_test_job(job_json(1, R"([{"name": "chatty", "resource": "reserved",
    "policies": [{"name": "probe_policy", "options": {"due_in_s": 1}}]}])"));
  const frugal::simulate::PlanConfig config(job, job.plans[0]);
  frugal::simulate::SchedulerSource source(sim_context(), config);
  auto setup = frugal::simulate::make_run_setup(job, job.plans[0], nullptr);
  CHECK(setup.max_events == kMaxEventsPerRun);
  std::atomic<uint64_t> events{0};
  setup.events = &events;
  const auto result = frugal::simulate::simulate_run(setup, source, 1);
  CHECK(result.finished);
  CHECK(result.records > 3600);
  CHECK(events.load() == static_cast<uint64_t>(result.records));  // exact at the end, batches or not

  setup.max_events = 1000;
  try {
    frugal::simulate::simulate_run(setup, source, 1);
    FAIL("the run did not stop at its event limit");
  } catch (const std::runtime_error& e) {
    CHECK_THAT(e.what(),
               Catch::Contains("plan 'chatty': a run went past the limit of 1e+03 simulated events at 1000 s"));
  }
}

TEST_CASE("progress bar: the share follows runs, or events while runs are long, and ends at 1 only when done") {
  CHECK(ProgressBar::share(0, 10, 0, 0.0) == 0.0);
  CHECK(ProgressBar::share(5, 10, 0, 0.0) == 0.5);
  CHECK(ProgressBar::share(0, 1, 250, 1000.0) == 0.25);   // one long run: the events move the bar
  CHECK(ProgressBar::share(0, 1, 5000, 1000.0) == 0.99);  // an estimate too low never says "done"
  CHECK(ProgressBar::share(1, 1, 10, 1000.0) == 1.0);
  CHECK(ProgressBar::share(0, 0, 0, 0.0) == 1.0);
}

TEST_CASE("event budget: a run that never gets to train is cut at max_wall_h, not left to run") {
  // Preempted every 36 s on average, during every 300 s full checkpoint the
  // policy asks for after each restart: the old engine checked the cut only
  // while training, so this run went on far past max_wall_h.
  const auto job =
      parse_test_job(job_json(10, R"([{"name": "doomed", "resource": "spot",
    "policies": [{"name": "probe_policy", "options": {"checkpoint_every": 1, "checkpoint_kind": 1}}]}])",
                              R"("preemption": {"spot_mtbf_node_h": 0.01, "capacity_wait_mean_s": 0, "notice_s": 0},
                                              "max_wall_h": 1,)"));
  const auto result = frugal::test::run_plan(job, 0, nullptr);
  CHECK(result.cut);
  CHECK_FALSE(result.finished);
  CHECK(result.wall_s >= 3600.0);
  CHECK(result.wall_s <= 3600.0 + 600.0 + 300.0);  // at most one restart and one checkpoint past the cut
}
