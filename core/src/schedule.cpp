// frugal_schedule: a schedule strategy instance behind the C API.
#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "context.hpp"
#include "error.hpp"
#include "frugal/schedule.h"
#include "schedule_instance.hpp"

namespace frugal {

double checked_lr(const ScheduleInstance& schedule, int64_t step) {
  double lr = 0.0;
  schedule.call(&frugal_schedule_vtable::lr, step, &lr);
  if (!std::isfinite(lr))
    fail(FRUGAL_ERR_INTERNAL, "{}: plugin returned a non-finite learning rate at step {}", schedule.label(), step);
  return lr;
}

}  // namespace frugal

struct frugal_schedule {
  frugal_schedule(std::shared_ptr<frugal::LoadedPlugin> plugin, const frugal::StrategyRecord& record, std::string label)
      : instance(std::move(plugin), record, std::move(label)) {}
  frugal::ScheduleInstance instance;
};

extern "C" {

FRUGAL_API frugal_error* frugal_schedule_create(frugal_context* context, const char* name,
                                                const frugal_options* options, frugal_schedule** out) {
  return frugal::guard("frugal_schedule_create", [&] {
    frugal::require_non_null(out, "frugal_schedule_create", "out");
    auto resolved = frugal::resolve_strategy(context, FRUGAL_KIND_SCHEDULE, name);
    auto schedule =
        std::make_unique<frugal_schedule>(resolved.plugin, *resolved.record, fmt::format("schedule '{}'", name));
    schedule->instance.create(options);
    *out = schedule.release();
  });
}

FRUGAL_API frugal_error* frugal_schedule_lr(frugal_schedule* schedule, int64_t step, double* lr) {
  return frugal::guard("frugal_schedule_lr", [&] {
    frugal::require_non_null(schedule, "frugal_schedule_lr", "schedule");
    frugal::require_non_null(lr, "frugal_schedule_lr", "lr");
    *lr = frugal::checked_lr(schedule->instance, step);
  });
}

FRUGAL_API void frugal_schedule_destroy(frugal_schedule* schedule) { delete schedule; }

}  // extern "C"
