// Merging the policies' proposals into one decision (the rules are listed
// in frugal/scheduler.h). Internal to libfrugal.
#pragma once

#include <span>
#include <string>

#include "frugal/telemetry.h"

namespace frugal::scheduling {

struct Proposal {
  const std::string* policy;  // the policy's strategy name, for the reason text
  frugal_decision decision;   // as the plugin filled it
};

// Checks a plugin's proposal: an out-of-range enum or a non-finite due time
// is a plugin bug, FRUGAL_ERR_INTERNAL naming the policy and the field.
void check_proposal(const Proposal& p);

// The merged decision for record t; `emergency` forces at least a heartbeat
// (the first record of a preemption notice). The reason text is built into
// `reason`, which the decision's reason points at.
frugal_decision merge_proposals(const frugal_telemetry& t, double lr, std::span<const Proposal> proposals,
                                bool emergency, std::string& reason);

}  // namespace frugal::scheduling
