// frugal_schedule: a schedule strategy instance, holding its plugin loaded.
#include <cmath>
#include <memory>
#include <string>

#include "context.hpp"
#include "error.hpp"
#include "plugin_call.hpp"
#include "frugal/schedule.h"
#include "frugal/schedule_vtable.h"

struct frugal_schedule {
  std::shared_ptr<frugal::LoadedPlugin> plugin;  // keeps the code below mapped
  frugal_schedule_vtable vtable{};
  void* instance = nullptr;
  std::string label;  // "schedule 'cosine'" for error messages

  ~frugal_schedule() {
    if (instance == nullptr) return;
    try {
      vtable.destroy(instance);
    } catch (...) {
      plugin->log(FRUGAL_LOG_ERROR, label + ": destroy threw an exception (plugins must not throw across the ABI)");
    }
  }
};

extern "C" {

FRUGAL_API frugal_error* frugal_schedule_create(frugal_context* context, const char* name,
                                                const frugal_options* options, frugal_schedule** out) {
  return frugal::guard("frugal_schedule_create", [&] {
    frugal::require_non_null(out, "frugal_schedule_create", "out");
    auto resolved = frugal::resolve_strategy(context, FRUGAL_KIND_SCHEDULE, name);
    auto schedule = std::make_unique<frugal_schedule>();
    schedule->plugin = resolved.plugin;
    schedule->vtable = resolved.record->vtable<frugal_schedule_vtable>();
    schedule->label = fmt::format("schedule '{}'", name);
    frugal::check_declared_options(resolved.record->options, options, schedule->label);
    void* instance = nullptr;
    frugal::call_plugin(schedule->label, [&] { return schedule->vtable.create(schedule->plugin->host(), options, &instance); });
    if (instance == nullptr)
      frugal::fail(FRUGAL_ERR_INTERNAL, "{}: create succeeded but returned a NULL instance", schedule->label);
    schedule->instance = instance;
    *out = schedule.release();
  });
}

FRUGAL_API frugal_error* frugal_schedule_lr(frugal_schedule* schedule, int64_t step, double* lr) {
  return frugal::guard("frugal_schedule_lr", [&] {
    frugal::require_non_null(schedule, "frugal_schedule_lr", "schedule");
    frugal::require_non_null(lr, "frugal_schedule_lr", "lr");
    double value = 0.0;
    frugal::call_plugin(schedule->label, [&] { return schedule->vtable.lr(schedule->instance, step, &value); });
    if (!std::isfinite(value))
      frugal::fail(FRUGAL_ERR_INTERNAL, "{}: plugin returned a non-finite learning rate at step {}", schedule->label,
                   step);
    *lr = value;
  });
}

FRUGAL_API void frugal_schedule_destroy(frugal_schedule* schedule) { delete schedule; }

}  // extern "C"
