// The job reader: defaults, the standard plans, options filled in from the
// job, and a clear error (the file, the member's path, what is wrong; the
// line:column of a syntax error) for every bad field.
#include <catch2/catch.hpp>

#include "job_reader.hpp"
#include "loss_model.hpp"
#include "option_values.hpp"
#include "sim_fixture.hpp"

using frugal::simulate::find_option;
using frugal::simulate::Job;
using frugal::simulate::KnownStrategies;
using frugal::simulate::parse_job;
using frugal::test::input_error_of;
using frugal::test::job_json;

namespace {

const char* kMinimal = R"({"name": "m", "gpus_per_node": 8, "work": {"tokens": 1e9},
  "throughput": {"tokens_per_gpu_s": 1000}, "checkpoint": {"full_s": 300, "heartbeat_s": 30},
  "prices": {"spot": 10, "reserved": 30}})";

const KnownStrategies kKnown{{"checkpoint_cadence", "early_stop", "plateau_autoscaler", "spot_phase"},
                             {"constant", "cosine", "linear_warmup"}};

std::string job_refusal(const std::string& text, const KnownStrategies& known = kKnown) {
  return input_error_of([&] { parse_job(text, "job.json", "", known); });
}

// kMinimal with `member` (a "key": value pair) added at the top level.
std::string with(const std::string& member) { return std::string(kMinimal).insert(1, member + ", "); }

}  // namespace

TEST_CASE("job: a minimal file gets the defaults and the five standard plans") {
  const Job job = parse_job(kMinimal, "job.json", "", kKnown);
  CHECK(job.name == "m");
  CHECK(job.nodes == 1);
  CHECK(job.work_tokens == 1e9);
  CHECK(job.scaling_efficiency == 1.0);
  CHECK(job.telemetry_interval_s == 3600.0);
  REQUIRE(job.plans.size() == 5);
  const char* names[] = {"reserved", "spot", "spot_then_reserved", "spot_heartbeats", "autoscaling"};
  for (size_t i = 0; i < 5; ++i) CHECK(job.plans[i].name == names[i]);
  CHECK(job.plans[0].resource == FRUGAL_RESOURCE_RESERVED);
  // Filled from the job: the cosine schedule's length, Young/Daly's inputs, the reserved price.
  const auto total = find_option(job.plans[0].schedule_options, "total_steps");
  REQUIRE(total != nullptr);
  CHECK(total->int_value == frugal::simulate::plan_total_steps(job, job.plans[0]));
  const auto& warmup = job.plans[2].policies;
  REQUIRE(warmup.size() == 2);
  CHECK(find_option(warmup[0].options, "reserved_price")->double_value == 30.0);
  CHECK(find_option(warmup[1].options, "checkpoint_cost_s")->double_value == 300.0);
  CHECK(find_option(warmup[1].options, "mtbf_s")->double_value == 24.0 * 3600.0);
  CHECK(find_option(job.plans[4].policies[0].options, "max_nodes")->int_value == 2);
}

TEST_CASE("job: plans from the file, options typed, standard plans only on request") {
  const Job job = parse_job(job_json(10, R"([{"name": "p", "resource": "reserved", "nodes": 2, "padding_fraction": 0.25,
    "schedule": "cosine", "schedule_options": {"lr": 0.001, "total_steps": 77},
    "policies": ["spot_phase", {"name": "checkpoint_cadence", "options": {"full_interval_steps": 5, "young_daly": false, "notice_safety": 1.5}}]}])"),
                            "job.json", "", kKnown);
  REQUIRE(job.plans.size() == 1);
  const auto& plan = job.plans[0];
  CHECK(plan.nodes == 2);
  CHECK(plan.padding_fraction == 0.25);
  CHECK(find_option(plan.schedule_options, "total_steps")->int_value == 77);  // the file wins
  const auto& options = plan.policies[1].options;
  CHECK(find_option(options, "full_interval_steps")->type == frugal::simulate::OptionValue::Type::kInt);
  CHECK(find_option(options, "young_daly")->type == frugal::simulate::OptionValue::Type::kBool);
  CHECK(find_option(options, "notice_safety")->double_value == 1.5);
  CHECK(find_option(options, "checkpoint_cost_s")->double_value == 300.0);  // the job's full checkpoint
  CHECK(find_option(options, "mtbf_s") == nullptr);                         // not Young/Daly
  CHECK(frugal::simulate::plan_tokens(job, plan) == Approx(job.work_tokens / 0.75));

  const Job both =
      parse_job(std::string(kMinimal).insert(1, R"("standard_plans": true, "plans": [{"name": "mine"}], )"), "job.json",
                "", kKnown);
  CHECK(both.plans.size() == 6);
  CHECK(both.plans[0].name == "mine");
}

TEST_CASE("job: every bad field is refused with its path and what is wrong") {
  const std::pair<std::string, std::string> cases[] = {
      {std::string(kMinimal).replace(std::string(kMinimal).find("\"spot\": 10"), 10, "\"spot\": -1"),
       "job.json: prices.spot must be in [0, 1000000000], got -1"},
      {with(R"("telemetry_interval_s": NaN)"), "job.json:1:26: syntax error while parsing value - invalid literal"},
      {with(R"("nodes": 0)"), "job.json: nodes must be in [1, 100000], got 0"},
      {with(R"("nodes": 1.5)"), "nodes must be an integer, got 1.5"},
      {with(R"("gpus_per_nodes": 8)"), "job.json: unknown member gpus_per_nodes (known here: "},
      {with(R"("plans": [{"name": "p", "policies": ["spot_phaze"]}])"),
       "job.json: plans[0].policies[0]: unknown policy 'spot_phaze' (known: checkpoint_cadence, early_stop, "
       "plateau_autoscaler, spot_phase)"},
      {with(R"("plans": [{"name": "p", "policies": [{"name": "magic", "options": {}}]}])"), "unknown policy 'magic'"},
      {with(R"("plans": [{"name": "p", "schedule": "zigzag"}])"), "plans[0].schedule: unknown LR schedule 'zigzag'"},
      {with(R"("plans": [{"name": "p", "resource": "preemptible"}])"),
       "plans[0].resource must be \"spot\" or \"reserved\", got \"preemptible\""},
      {with(R"("plans": [{"name": "p", "policies": [{"name": "spot_phase", "options": {"window": [3]}}]}])"),
       "plans[0].policies[0].options.window must be a number, true/false or a string, got an array"},
      {with(R"("plans": [{"name": "p", "policies": [{"name": "spot_phase", "options": {"bad name": 1}}]}])"),
       "option name 'bad name' is not 1-128 characters of [A-Za-z0-9_.-]"},
      {with(R"("plans": [{"name": "p"}, {"name": "p"}])"), "job.json: two plans are named 'p'"},
      {with(R"("plans": [])"), "plans is empty (and standard_plans is false)"},
      {with(R"("plans": [{"name": "p", "padding_fraction": 1}])"),
       "plans[0].padding_fraction must be in [0, 0.99], got 1"},
      {with(R"("loss": {"model": "cubic"})"), "loss.model must be \"power_law\" or \"log\", got \"cubic\""},
      {with(R"("loss": {"initial": 2, "floor": 3})"), "loss.floor must be below loss.initial"},
      {with(R"("preemption": {"notice_s": -1})"), "preemption.notice_s must be in [0, 3600], got -1"},
      {with(R"("name": 5)"), "job.json:1:18: duplicate member \"name\""},
      {R"({"name": "m"})", "job.json: gpus_per_node is missing"},
      {"[1]", "job.json: the job must be an object, got an array"},
      {std::string(kMinimal).replace(std::string(kMinimal).find("\"tokens\": 1e9"), 13,
                                     "\"tokens\": 1e9, \"gpu_hours\": 3"),
       "work needs exactly one of \"tokens\" or \"gpu_hours\""},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    CHECK_THAT(job_refusal(text), Catch::Contains(message));
  }
}

TEST_CASE("job: a recorded loss log, and malformed logs refused naming the line") {
  const std::string good = frugal::test::temp_file("loss.csv", "step,loss\n0,10\n100,6\n# a comment\n300,4\n");
  const Job job = frugal::simulate::read_job_file(
      frugal::test::temp_file("job.json", with(R"("loss": {"model": "log", "file": "loss.csv"})")), kKnown);
  REQUIRE(job.loss.log_steps.size() == 3);
  CHECK(frugal::simulate::loss_at(job.loss, 0, 50) == Approx(8.0));
  CHECK(frugal::simulate::loss_at(job.loss, 0, 1000) == 4.0);
  (void)good;

  const std::pair<std::string, std::string> logs[] = {
      {"step,loss\n0,10\n100,nan\n", "bad.csv:3: loss is not a finite number: 'nan'"},
      {"0,10\n100,6\n50,5\n", "bad.csv:3: step going backwards: 50 after 100"},
      {"0,10\n1.5,6\n", "bad.csv:2: step must be an integer >= 0, got '1.5'"},
      {"0,10,3\n", "bad.csv:1: expected 2 fields (step,loss), got 3"},
      {"step,value\n0,1\n", "bad.csv:1: expected the header step,loss or a data row, got 'step,value'"},
      {"step,loss\n", "bad.csv: empty loss log: no rows"},
  };
  for (const auto& [text, message] : logs) {
    INFO(text);
    const std::string path = frugal::test::temp_file("bad.csv", text);
    const std::string job_path =
        frugal::test::temp_file("bad_job.json", with(R"("loss": {"model": "log", "file": "bad.csv"})"));
    CHECK(input_error_of([&] { frugal::simulate::read_job_file(job_path, kKnown); }) == path + message.substr(7));
  }
  CHECK_THAT(job_refusal(with(R"("loss": {"model": "log", "file": "/nonexistent/loss.csv"})")),
             Catch::StartsWith("cannot read '/nonexistent/loss.csv'"));
}
