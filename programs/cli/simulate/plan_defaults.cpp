// Options a plan may leave unset because the job determines them. Only
// options the plan does not set are added, so a file can always override.
#include <algorithm>
#include <cmath>

#include "job_reader.hpp"
#include "option_values.hpp"

namespace frugal::simulate {
namespace {

// "policy_cost/spot_phase" -> "spot_phase".
std::string bare_name(const std::string& name) {
  const size_t slash = name.find('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

}  // namespace

int64_t plan_total_steps(const Job& job, const PlanSpec& plan) {
  return std::max<int64_t>(
      1, static_cast<int64_t>(std::ceil(plan_tokens(job, plan) / static_cast<double>(job.tokens_per_step))));
}

void fill_job_defaults(const Job& job, PlanSpec& plan) {
  const int64_t total_steps = plan_total_steps(job, plan);
  const std::string schedule = bare_name(plan.schedule);
  if (schedule == "cosine") {
    set_default(plan.schedule_options, int_option("total_steps", total_steps));
    // 1% warm-up unless the plan says otherwise (and never all of it).
    set_default(plan.schedule_options,
                int_option("warmup_steps", std::min<int64_t>(total_steps / 100, total_steps - 1)));
  }
  for (auto& policy : plan.policies) {
    const std::string name = bare_name(policy.name);
    if (name == "checkpoint_cadence") {
      // The policy's prior for a full checkpoint's stall: it decides
      // Young/Daly intervals and whether a full fits in a preemption notice
      // before any full was measured.
      set_default(policy.options, double_option("checkpoint_cost_s", job.checkpoint_full_s));
      // The job's MTBF on the plan's spot nodes, for Young/Daly; a plan
      // that starts on reserved capacity is not preempted: nothing to fill.
      if (option_is_true(policy.options, "young_daly") && plan.resource == FRUGAL_RESOURCE_SPOT &&
          spot_mtbf_s(job, plan.nodes) > 0.0)
        set_default(policy.options, double_option("mtbf_s", spot_mtbf_s(job, plan.nodes)));
    }
    if (name == "spot_phase") set_default(policy.options, double_option("reserved_price", job.reserved_price));
  }
}

}  // namespace frugal::simulate
