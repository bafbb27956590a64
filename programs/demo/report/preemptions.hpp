// Preemptions and resumes, read from a run's events and steps.
#pragma once

#include <vector>

#include "report.hpp"

namespace frugal_demo {

// One entry per attempt that got a preempt_notice or was killed, in
// attempt order. The killed event's attempt is the attempt killed.
std::vector<Preemption> find_preemptions(const RunMetrics& run);

ResumeCheck check_resumes(const RunMetrics& run);

}  // namespace frugal_demo
