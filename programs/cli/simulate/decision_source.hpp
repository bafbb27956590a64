// What the engine asks after every telemetry record. The simulator's real
// source is a frugal_scheduler (scheduler_source.hpp); the benchmark also
// runs the same event loop against a trivial in-process source, so the
// scheduler's share of the time is visible.
#pragma once

#include "frugal/scheduler.h"
#include "frugal/telemetry.h"

namespace frugal::simulate {

class DecisionSource {
 public:
  virtual ~DecisionSource() = default;
  // Forget everything: the next record starts a new run.
  virtual void begin_run() = 0;
  // Books one record; the decision stays valid until the next call.
  virtual const frugal_decision& step(const frugal_telemetry& telemetry) = 0;
  // The ledger after the last record; false when the source keeps none.
  virtual bool ledger(frugal_cost_ledger& out) const = 0;
};

}  // namespace frugal::simulate
