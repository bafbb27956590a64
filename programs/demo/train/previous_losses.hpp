// The losses earlier attempts of a run logged, by step: what a resumed
// attempt compares its recomputed steps with (the demo's proof that a
// resume continues exactly where the checkpoint left off).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>

namespace frugal_demo {

// For every step above `after_step` in run_dir's steps.csv that an
// attempt before `attempt` logged, the loss of the latest such attempt.
std::map<std::int64_t, double> previous_losses(const std::filesystem::path& run_dir, int attempt,
                                               std::int64_t after_step);

}  // namespace frugal_demo
