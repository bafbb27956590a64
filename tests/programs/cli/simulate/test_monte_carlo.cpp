// Many runs: every run's books balance (the scheduler's ledger against the
// engine's own sums), results depend on the seed and nothing else (not on
// the thread count), and a different seed gives different results.
#include <catch2/catch.hpp>

#include "report.hpp"
#include "sim_fixture.hpp"
#include "simulation.hpp"
#include "trace_readers.hpp"

using frugal::simulate::MonteCarloOptions;
using frugal::simulate::simulate;
using frugal::test::job_json;
using frugal::test::parse_test_job;
using frugal::test::sim_context;

namespace {

// Preemptions every ~3 h per node, capacity waits, 2-minute notices, and
// plans that checkpoint, move and scale (scripted by probe_policy).
const char* kPlans = R"([
  {"name": "reserved", "resource": "reserved", "schedule": "cosine"},
  {"name": "spot_bare", "resource": "spot", "nodes": 2},
  {"name": "spot_checkpoints", "resource": "spot", "nodes": 2, "schedule": "linear_warmup",
   "policies": [{"name": "probe_policy", "options": {"checkpoint_every": 2, "checkpoint_kind": 1, "due_in_s": 1500}}]},
  {"name": "to_reserved_4", "resource": "spot",
   "policies": [{"name": "probe_policy", "options": {"checkpoint_every": 5, "checkpoint_kind": 2, "resource": 2, "nodes": 4}}]}])";

frugal::simulate::Job noisy_job() {
  return parse_test_job(
      job_json(40, kPlans,
               R"("preemption": {"spot_mtbf_node_h": 6, "capacity_wait_mean_s": 1800, "notice_s": 120},
         "loss": {"model": "power_law", "initial": 10, "floor": 2, "alpha": 0.3, "scale_tokens": 1e8, "noise": 0.02},)"));
}

std::string json_of(const frugal::simulate::Job& job, uint64_t runs, uint64_t seed, unsigned threads,
                    const frugal::simulate::Trace* trace = nullptr) {
  MonteCarloOptions options;
  options.runs = runs;
  options.seed = seed;
  options.threads = threads;
  return frugal::simulate::format_json(simulate(sim_context(), job, trace, options).report);
}

}  // namespace

TEST_CASE("monte carlo: every run of every plan balances its books") {
  const auto job = noisy_job();
  MonteCarloOptions options;
  options.runs = 150;
  options.seed = 7;
  options.check_books = false;  // checked here, run by run
  const auto sim = simulate(sim_context(), job, nullptr, options);
  size_t runs = 0;
  int64_t preemptions = 0;
  for (size_t p = 0; p < sim.results.size(); ++p) {
    for (const auto& r : sim.results[p]) {
      INFO("plan " << job.plans[p].name << ": " << frugal::simulate::check_conservation(r));
      REQUIRE(frugal::simulate::check_conservation(r).empty());
      REQUIRE(r.has_ledger);
      CHECK(r.ledger.productive_s + r.ledger.stall_s + r.ledger.lost_s == Approx(r.ledger.wall_s));
      CHECK(r.ledger.spot_dollars + r.ledger.reserved_dollars == Approx(r.ledger.dollars));
      CHECK(r.finished);
      preemptions += r.preemptions;
      ++runs;
    }
  }
  CHECK(runs == 4 * 150);
  CHECK(preemptions > 1000);  // the paths under test were exercised
  CHECK(sim.report.plans[0].preemptions.max == 0.0);
  CHECK(sim.report.plans[2].checkpoints.mean > 0.0);
}

TEST_CASE("monte carlo: same seed, same bytes, whatever the thread count; another seed differs") {
  const auto job = noisy_job();
  const std::string one = json_of(job, 40, 11, 1);
  CHECK(json_of(job, 40, 11, 1) == one);
  CHECK(json_of(job, 40, 11, 3) == one);
  CHECK(json_of(job, 40, 12, 2) != one);
  CHECK(frugal::simulate::run_seed(11, 0) != frugal::simulate::run_seed(11, 1));
  CHECK(frugal::simulate::run_seed(11, 0) != frugal::simulate::run_seed(12, 0));
}

TEST_CASE("monte carlo: with an availability and price trace, the runs are deterministic too") {
  const auto job = noisy_job();
  const auto trace =
      frugal::simulate::parse_trace("time_s,available,spot_price\n0,1,9\n20000,0,9\n26000,1,14\n50000,1,8\n", "t.csv",
                                    frugal::simulate::TraceFormat::kAuto, {});
  const std::string a = json_of(job, 10, 3, 2, &trace);
  CHECK(json_of(job, 10, 3, 1, &trace) == a);
  CHECK_THAT(a, Catch::Contains("\"format\": \"csv\""));
}

TEST_CASE("monte carlo: a bad plan is an input error naming the job file and the plan") {
  auto job = parse_test_job(job_json(
      1, R"([{"name": "bad", "policies": [{"name": "probe_policy", "options": {"checkpoint_every": "x"}}]}])"));
  CHECK_THAT(frugal::test::input_error_of([&] { simulate(sim_context(), job, nullptr, MonteCarloOptions{}); }),
             Catch::StartsWith("test.json: plan 'bad': policy 'probe_policy': "));
  job = parse_test_job(job_json(1, R"([{"name": "ghost", "policies": ["no_such_policy"]}])"));
  CHECK_THAT(frugal::test::input_error_of([&] { simulate(sim_context(), job, nullptr, MonteCarloOptions{}); }),
             Catch::StartsWith("test.json: plan 'ghost': ") && Catch::Contains("no_such_policy"));
}
