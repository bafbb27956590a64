// A schedule strategy instance, and the one way its lr slot is read, for
// frugal_schedule and the run scheduler alike. Internal to libfrugal.
#pragma once

#include <cstdint>

#include "frugal/schedule_vtable.h"
#include "strategy_instance.hpp"

namespace frugal {

using ScheduleInstance = StrategyInstance<frugal_schedule_vtable>;

// The rate at `step`; INTERNAL, naming the schedule, for a non-finite one
// (the slot promises a finite rate, and a NaN would train silently).
double checked_lr(const ScheduleInstance& schedule, int64_t step);

}  // namespace frugal
