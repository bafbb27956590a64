// Every numeric member of a job file at the ends of its documented range
// (docs/simulate.md): the minimum and the maximum are read, and then either
// simulated to the end with finite books or refused by the event budget;
// the values just outside are refused naming the member. Products of
// extreme values (a huge throughput times a huge gpu_hours, a huge work with
// the most padding) are refused before they overflow what a telemetry
// record can hold.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "event_budget.hpp"
#include "job_reader.hpp"
#include "sim_fixture.hpp"
#include "simulation.hpp"

using frugal::simulate::Job;
using frugal::test::input_error_of;
using frugal::test::parse_test_job;

namespace {

// "object.member" (or a top-level "member") -> its JSON text.
using Members = std::map<std::string, std::string>;

const Members kBase = {{"name", R"("r")"},           {"gpus_per_node", "8"},
                       {"work.tokens", "1e9"},       {"throughput.tokens_per_gpu_s", "1000"},
                       {"checkpoint.full_s", "300"}, {"checkpoint.heartbeat_s", "30"},
                       {"prices.spot", "10"},        {"prices.reserved", "30"}};

// kBase with `changes`; "plan.x" members go into a single plan named "p",
// and work.gpu_hours replaces work.tokens.
std::string job_text(const Members& changes) {
  Members all = kBase;
  for (const auto& [path, value] : changes) all[path] = value;
  if (all.count("work.gpu_hours") != 0) all.erase("work.tokens");
  std::map<std::string, std::string> objects;  // object -> its members' text
  std::string top;
  for (const auto& [path, value] : all) {
    const size_t dot = path.find('.');
    if (dot == std::string::npos) {
      top += fmt::format(R"("{}": {}, )", path, value);
    } else {
      std::string& body = objects[path.substr(0, dot)];
      body += fmt::format(R"({}"{}": {})", body.empty() ? "" : ", ", path.substr(dot + 1), value);
    }
  }
  std::string plan;
  if (objects.count("plan") != 0) {
    plan = fmt::format(R"("plans": [{{"name": "p", {}}}], )", objects["plan"]);
    objects.erase("plan");
  }
  for (const auto& [object, body] : objects) top += fmt::format(R"("{}": {{{}}}, )", object, body);
  top += plan;
  top.resize(top.size() - 2);
  return "{" + top + "}";
}

struct Range {
  const char* path;
  double min, max;
  bool integer;
  Members context;  // what the member needs around it
};

// The documented ranges (docs/simulate.md, the job file's table).
const Range kRanges[] = {
    {"gpus_per_node", 1, 1024, true, {}},
    {"nodes", 1, 100000, true, {}},
    {"work.tokens", 1, 1e18, false, {}},
    {"work.gpu_hours", 1e-6, 1e9, false, {}},
    {"throughput.tokens_per_gpu_s", 1e-9, 1e12, false, {}},
    {"throughput.scaling_efficiency", 0.01, 1, false, {}},
    {"tokens_per_step", 1, 9007199254740992.0, true, {}},
    // Each in [-1e9, 1e9] and floor < initial: the other one at its end.
    {"loss.initial", std::nextafter(-1e9, 0.0), 1e9, false, {{"loss.floor", "-1e9"}}},
    {"loss.floor", -1e9, std::nextafter(1e9, 0.0), false, {{"loss.initial", "1e9"}}},
    {"loss.alpha", 1e-6, 10, false, {}},
    {"loss.scale_tokens", 1e-9, 1e18, false, {}},
    {"loss.noise", 0, 1, false, {}},
    {"loss.eval_noise", 0, 1, false, {}},
    {"checkpoint.full_s", 0, 1e6, false, {}},
    {"checkpoint.heartbeat_s", 0, 1e6, false, {}},
    {"checkpoint.every_steps", 1, 9007199254740992.0, true, {}},
    {"checkpoint.heartbeat_interval_s", 1, 1e9, false, {}},
    {"restart_s", 0, 1e7, false, {}},
    {"prices.spot", 0, 1e9, false, {}},
    {"prices.reserved", 0, 1e9, false, {}},
    {"preemption.spot_mtbf_node_h", 0, 1e9, false, {}},
    {"preemption.capacity_wait_mean_s", 0, 1e9, false, {}},
    {"preemption.notice_s", 0, 3600, false, {}},
    {"telemetry_interval_s", 1, 1e7, false, {}},
    {"max_wall_h", 0, 1e7, false, {}},
    {"plan.nodes", 1, 100000, true, {}},
    {"plan.padding_fraction", 0, 0.99, false, {}},
};

std::string number_text(double v) { return fmt::format("{}", v); }

// The next representable value outside the range (an integer's neighbour).
double outside(const Range& r, bool below) {
  if (r.integer) return below ? r.min - 1 : (r.max >= 9e15 ? r.max + 2 : r.max + 1);
  return std::nextafter(below ? r.min : r.max, below ? -HUGE_VAL : HUGE_VAL);
}

// The member's name in messages: "plans[0].nodes" for a plan's.
std::string message_name(const std::string& path) {
  return path.rfind("plan.", 0) == 0 ? "plans[0]." + path.substr(5) : path;
}

// A read job is simulated (one run, every plan, with the real policies)
// to finite books, or refused by the event budget: never UB, a hang or a
// failure of the run.
void simulate_or_refuse(const Job& job) {
  frugal::simulate::MonteCarloOptions options;
  options.runs = 1;
  options.threads = 1;
  for (const auto& plan : job.plans) {
    const double events = frugal::simulate::estimate_run_events(job, plan, nullptr).total();
    INFO("plan " << plan.name << ": about " << events << " events");
    REQUIRE(std::isfinite(events));
  }
  frugal::simulate::Simulation sim;
  const std::string refused =
      input_error_of([&] { sim = frugal::simulate::simulate(frugal::test::sim_context(), job, nullptr, options); });
  if (!refused.empty()) {
    INFO(refused);
    // The event budget, or a policy refusing its options (naming the plan).
    CHECK((refused.find("events") != std::string::npos || refused.find("plan '") != std::string::npos));
    return;
  }
  for (const auto& runs : sim.results)
    for (const auto& r : runs) {
      CHECK(std::isfinite(r.dollars));
      CHECK(std::isfinite(r.wall_s));
      CHECK(r.processed_tokens >= 0.0);
      CHECK(r.processed_tokens <= 4611686018427387904.0);
    }
}

}  // namespace

TEST_CASE("job ranges: every numeric member at min and max is read and simulated or refused; outside is refused") {
  for (const Range& r : kRanges) {
    for (const double value : {r.min, r.max}) {
      Members changes = r.context;
      changes[r.path] = number_text(value);
      const std::string text = job_text(changes);
      INFO(text);
      Job job;
      REQUIRE_NOTHROW(job = parse_test_job(text));
      simulate_or_refuse(job);
    }
    for (const bool below : {true, false}) {
      Members changes = r.context;
      const double value = outside(r, below);
      changes[r.path] = number_text(value);
      const std::string text = job_text(changes);
      INFO(text);
      const std::string error = input_error_of([&] { parse_test_job(text); });
      CHECK_THAT(error, Catch::Contains(message_name(r.path)));
    }
  }
}

TEST_CASE("job ranges: products of extreme values are refused before they overflow") {
  // The work a gpu_hours gives is bounded like work.tokens.
  const std::string hours = input_error_of([&] {
    parse_test_job(job_text({{"work.gpu_hours", "1e9"}, {"throughput.tokens_per_gpu_s", "1e12"}}));
  });
  CHECK_THAT(hours, Catch::Contains("work.gpu_hours 1000000000 x 3600 x throughput.tokens_per_gpu_s 1000000000000 is "
                                    "3.6e+24 tokens, more than work.tokens allows (1e+18)"));
  // 1e18 tokens with 99% padding is 1e20 processed tokens: more than int64.
  const std::string padding = input_error_of([&] {
    parse_test_job(job_text({{"work.tokens", "1e18"}, {"plan.padding_fraction", "0.99"}}));
  });
  CHECK_THAT(padding, Catch::Contains("plans[0].padding_fraction 0.99 makes the plan process 1e+20 tokens"));
  CHECK_THAT(padding, Catch::Contains("more than the 4.61e+18 a telemetry record can count"));
  // At the edge of what is allowed the steps still fit (the old reader
  // made total_steps INT64_MIN out of an infinite work).
  const Job job =
      parse_test_job(job_text({{"work.tokens", "1e18"}, {"tokens_per_step", "1"}, {"plan.padding_fraction", "0.75"}}));
  CHECK(frugal::simulate::plan_total_steps(job, job.plans[0]) == 4000000000000000000);
}
