// The worked example `frugal simulate` runs without --job: the job file
// programs/cli/simulate/examples/worked_example.json, compiled in (docs/simulate.md
// explains its reading of the example and its calibration).
#pragma once

#include <string_view>

#include "job.hpp"
#include "job_reader.hpp"

namespace frugal::simulate {

std::string_view worked_example_text();  // generated from the sample at build time
inline constexpr const char* kWorkedExampleSource = "worked_example.json (built in)";
Job worked_example_job(const KnownStrategies& known);

}  // namespace frugal::simulate
