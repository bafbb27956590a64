// The three outputs: the table names every plan, the JSON has a top-level
// "plans" list with each plan's "cost" (and parses), the SVG is one
// well-formed document with names escaped.
#include <catch2/catch.hpp>

#include "json_input.hpp"
#include "report.hpp"
#include "sim_fixture.hpp"
#include "simulation.hpp"

using frugal::test::job_json;
using frugal::test::parse_test_job;

namespace {

frugal::simulate::Simulation small_simulation(const frugal::simulate::Job& job) {
  frugal::simulate::MonteCarloOptions options;
  options.runs = 5;
  return frugal::simulate::simulate(frugal::test::sim_context(), job, nullptr, options);
}

}  // namespace

TEST_CASE("reports: table, JSON and SVG of a small simulation") {
  const auto job =
      parse_test_job(job_json(3, R"([{"name": "reserved <&> \"x\"", "resource": "reserved", "description": "d"},
    {"name": "spot", "resource": "spot", "nodes": 2}])"));
  const auto sim = small_simulation(job);

  const std::string table = frugal::simulate::format_table(sim.report);
  CHECK_THAT(table, Catch::Contains("reserved <&> \"x\"") && Catch::Contains("spot") && Catch::Contains("cost $") &&
                        Catch::Contains("util %") && Catch::Contains("5 runs per plan, seed 1"));

  const auto json = frugal::simulate::parse_json(frugal::simulate::format_json(sim.report), "report");
  const auto& plans = json.at("plans");
  REQUIRE(plans.size() == 2);
  for (const auto& plan : plans) {
    CHECK(plan.at("cost").is_number());
    CHECK(plan.at("stats").at("cost").at("p90").is_number());
    CHECK(plan.at("runs") == 5);
  }
  CHECK(plans[0].at("name") == "reserved <&> \"x\"");
  CHECK(plans[0].at("cost").get<double>() == Approx(90.0));
  CHECK(json.at("trace").is_null());

  const std::string svg = frugal::simulate::format_svg(sim.report);
  CHECK_THAT(svg, Catch::StartsWith("<?xml version=\"1.0\"") && Catch::EndsWith("</svg>\n") &&
                      Catch::Contains("reserved &lt;&amp;&gt; &quot;x&quot;"));
  CHECK_THAT(svg, !Catch::Contains("<&>"));
}
