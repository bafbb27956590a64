// The worked example (the job `frugal simulate` runs without --job): its
// two fleets land within 5% of the example's figures - 16 GPUs for 400 h
// at 35% utilisation for $64K, 8 GPUs for 220 h at 75% for $28K - and
// every plan, the standard ones included, balances its books.
#include <catch2/catch.hpp>

#include "sim_fixture.hpp"
#include "simulation.hpp"
#include "worked_example.hpp"

namespace {

const frugal::simulate::PlanSummary& plan_named(const frugal::simulate::Report& report, const std::string& name) {
  for (const auto& p : report.plans)
    if (p.plan->name == name) return p;
  FAIL("no plan " << name);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("worked example: both fleets within 5% of the example's cost, hours and utilisation") {
  const auto job =
      frugal::simulate::worked_example_job(frugal::simulate::known_strategies(frugal::test::sim_context()));
  frugal::simulate::MonteCarloOptions options;
  options.runs = 400;
  const auto sim = frugal::simulate::simulate(frugal::test::sim_context(), job, nullptr, options);

  const auto& a = plan_named(sim.report, "A_16gpu_spot");
  CHECK(a.plan->nodes * job.gpus_per_node == 16);
  CHECK(a.cost.mean == Approx(64000.0).epsilon(0.05));
  CHECK(a.wall_h.mean == Approx(400.0).epsilon(0.05));
  CHECK(a.utilisation.mean == Approx(0.35).epsilon(0.05));

  const auto& b = plan_named(sim.report, "B_8gpu_warmup_reserved");
  CHECK(b.plan->nodes * job.gpus_per_node == 8);
  CHECK(b.cost.mean == Approx(28000.0).epsilon(0.05));
  CHECK(b.wall_h.mean == Approx(220.0).epsilon(0.05));
  CHECK(b.utilisation.mean == Approx(0.75).epsilon(0.05));

  CHECK(sim.report.plans.size() == 7);  // A, B and the five standard plans
  for (const auto& p : sim.report.plans) {
    INFO(p.plan->name);
    CHECK(p.finished == p.runs);
  }
}
