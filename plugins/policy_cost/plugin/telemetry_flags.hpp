// What a record's flags say about its loss, for every strategy that reads
// the loss (early_stop, spot_phase, plateau_autoscaler).
#pragma once

#include "frugal/telemetry.h"

namespace frugal::policy::plugin {

// Whether the record's training loss is an observation: a record flagged
// FRUGAL_TELEMETRY_NO_LOSS has none, and must not count as one.
[[nodiscard]] inline bool has_training_loss(const frugal_telemetry& t) noexcept {
  return (t.flags & FRUGAL_TELEMETRY_NO_LOSS) == 0;
}

}  // namespace frugal::policy::plugin
