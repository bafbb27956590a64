// The run's frugal_scheduler, built from the plan: the cosine LR schedule
// for both plans (so the ledger prices both the same way), plus the
// checkpoint_cadence and spot_phase policies for the frugal plan.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "frugal/frugal.h"
#include "frugal/sdk/host.hpp"
#include "run_plan.hpp"

namespace frugal_demo {

struct Decision {
  double lr = 0;
  std::int32_t checkpoint = FRUGAL_CKPT_NONE;
  std::int32_t resource = FRUGAL_RESOURCE_RESERVED;
  std::string reason;
};

class RunScheduler {
 public:
  RunScheduler(frugal_context* context, const RunPlan& plan);

  Decision step(const frugal_telemetry& telemetry);
  [[nodiscard]] frugal_cost_ledger ledger() const;
  // The scheduler itself (owned here), for registering its state with the
  // checkpoint engine: each save's export counts as a checkpoint in its
  // ledger (frugal_ckpt_register_scheduler).
  [[nodiscard]] frugal_scheduler* get() const { return scheduler_.get(); }

 private:
  frugal::host::SchedulerPtr scheduler_;
};

}  // namespace frugal_demo
