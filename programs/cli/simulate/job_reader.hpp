// Reading a job file (JSON; docs/simulate.md lists every member) into a
// Job: every value is checked (types, ranges, unknown members, unknown
// policies) and an error names the file, line:column and the member.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "job.hpp"

namespace frugal::simulate {

// Strategy names the plans may use; an empty list is not checked (the
// scheduler then refuses unknown names when it is created).
struct KnownStrategies {
  std::vector<std::string> policies;
  std::vector<std::string> schedules;
};

// `base_dir` resolves a relative loss-log path ("" = the current directory).
Job parse_job(std::string_view text, const std::string& source, const std::string& base_dir,
              const KnownStrategies& known);
Job read_job_file(const std::string& path, const KnownStrategies& known);

// The five plans compared when a job file lists none (standard_plans.cpp).
std::vector<PlanSpec> standard_plans(const Job& job);

// Options a plan leaves unset that the job determines: the cosine
// schedule's total_steps and warm-up, checkpoint_cadence's full-checkpoint
// cost (and Young/Daly's MTBF), spot_phase's reserved price
// (plan_defaults.cpp).
void fill_job_defaults(const Job& job, PlanSpec& plan);

// Total optimizer steps of a plan (its processed tokens / tokens per step).
int64_t plan_total_steps(const Job& job, const PlanSpec& plan);

}  // namespace frugal::simulate
