// The training loss a simulated job reports: the job's loss curve (a
// power law in tokens or a recorded log) with optional seeded noise.
// Evaluated once per telemetry record, never per training step.
#pragma once

#include <string>
#include <string_view>

#include "job.hpp"

namespace frugal::simulate {

// Noiseless loss after `real_tokens` tokens (power law) or at `step` (log).
double loss_at(const LossSpec& loss, double real_tokens, double step);

// Reads a loss log "step,loss" (header line optional) into spec.log_steps /
// log_losses: steps are integers >= 0 and strictly increasing, losses
// finite. InputError naming the file and line otherwise.
void read_loss_log(std::string_view text, const std::string& source, LossSpec& spec);

}  // namespace frugal::simulate
