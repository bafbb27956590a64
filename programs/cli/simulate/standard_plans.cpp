// The plans compared when a job file names none: the five of the issue,
// built from the job's own numbers (checkpoint cadence, heartbeat timer,
// node count). Options the job determines (the LR schedule's length,
// Young/Daly's inputs, the reserved price) are filled in afterwards by
// fill_job_defaults, exactly as for a plan written in a file.
#include <fmt/format.h>

#include <algorithm>

#include "job_reader.hpp"
#include "option_values.hpp"

namespace frugal::simulate {
namespace {

PlanSpec base_plan(const Job& job, std::string name, std::string description, int32_t resource) {
  PlanSpec plan;
  plan.name = std::move(name);
  plan.description = std::move(description);
  plan.resource = resource;
  plan.nodes = job.nodes;
  plan.schedule = "cosine";
  plan.schedule_options = {double_option("lr", 3e-4)};
  return plan;
}

PolicySpec fixed_cadence(const Job& job) {
  return {"checkpoint_cadence", {int_option("full_interval_steps", job.checkpoint_every_steps)}};
}

PolicySpec heartbeat_cadence(const Job& job) {
  return {"checkpoint_cadence",
          {double_option("heartbeat_interval_s", job.heartbeat_interval_s),
           int_option("full_interval_steps", job.checkpoint_every_steps)}};
}

}  // namespace

std::vector<PlanSpec> standard_plans(const Job& job) {
  std::vector<PlanSpec> plans;

  const std::string every = fmt::format("full checkpoints every {} steps", job.checkpoint_every_steps);
  PlanSpec reserved = base_plan(job, "reserved", "all reserved, " + every, FRUGAL_RESOURCE_RESERVED);
  reserved.policies = {fixed_cadence(job)};
  plans.push_back(std::move(reserved));

  PlanSpec spot = base_plan(job, "spot", "all spot, " + every, FRUGAL_RESOURCE_SPOT);
  spot.policies = {fixed_cadence(job)};
  plans.push_back(std::move(spot));

  PlanSpec warmup = base_plan(
      job, "spot_then_reserved",
      "spot while the loss warms up, reserved once it descends steadily; Young/Daly checkpoints", FRUGAL_RESOURCE_SPOT);
  warmup.policies = {{"spot_phase", {}}, {"checkpoint_cadence", {bool_option("young_daly", true)}}};
  plans.push_back(std::move(warmup));

  PlanSpec heartbeats = base_plan(
      job, "spot_heartbeats", fmt::format("all spot, a heartbeat every {:g} s, {}", job.heartbeat_interval_s, every),
      FRUGAL_RESOURCE_SPOT);
  heartbeats.policies = {heartbeat_cadence(job)};
  plans.push_back(std::move(heartbeats));

  const int64_t min_nodes = std::max<int64_t>(1, job.nodes / 2);
  const int64_t max_nodes = 2 * int64_t{job.nodes};
  PlanSpec autoscaling = base_plan(
      job, "autoscaling",
      fmt::format("as spot_heartbeats, on {} to {} nodes: more on a loss plateau, fewer when progress is fast",
                  min_nodes, max_nodes),
      FRUGAL_RESOURCE_SPOT);
  autoscaling.policies = {
      {"plateau_autoscaler", {int_option("min_nodes", min_nodes), int_option("max_nodes", max_nodes)}},
      heartbeat_cadence(job)};
  plans.push_back(std::move(autoscaling));
  return plans;
}

}  // namespace frugal::simulate
