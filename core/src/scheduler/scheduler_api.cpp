// frugal_scheduler_*: the run scheduler's C entry points. The work is in
// scheduler_core.cpp (steps), scheduler_state.cpp (the blob),
// telemetry_check.cpp, decision_merge.cpp and cost_ledger.cpp.
#include <exception>
#include <memory>

#include "error.hpp"
#include "frugal/scheduler.h"
#include "scheduler/scheduler_core.hpp"
#include "sized_structs.hpp"

struct frugal_scheduler {
  std::unique_ptr<frugal::scheduling::SchedulerCore> core;
};

namespace {

// Every config field through policy_count is required; gpus_per_node and
// reserved0 default to 0.
constexpr size_t kConfigMinSize = offsetof(frugal_scheduler_config, policy_count) + sizeof(size_t);

template <class Body>
frugal_error* with_scheduler(const char* fn, frugal_scheduler* scheduler, Body&& body) {
  return frugal::guard(fn, [&] {
    frugal::require_non_null(scheduler, fn, "scheduler");
    body(*scheduler->core);
  });
}

}  // namespace

extern "C" {

FRUGAL_API frugal_error* frugal_scheduler_create(frugal_context* context, const frugal_scheduler_config* config,
                                                 frugal_scheduler** out) {
  constexpr const char* kFn = "frugal_scheduler_create";
  return frugal::guard(kFn, [&] {
    frugal::require_non_null(out, kFn, "out");
    frugal::require_non_null(config, kFn, "config");
    const frugal_scheduler_config c = frugal::read_sized(config);
    frugal::require_size(&c, kConfigMinSize, "config");
    auto scheduler = std::make_unique<frugal_scheduler>();
    scheduler->core = std::make_unique<frugal::scheduling::SchedulerCore>(context, c);
    *out = scheduler.release();
  });
}

FRUGAL_API frugal_error* frugal_scheduler_step(frugal_scheduler* scheduler, const frugal_telemetry* telemetry,
                                               frugal_decision* decision) {
  constexpr const char* kFn = "frugal_scheduler_step";
  return with_scheduler(kFn, scheduler, [&](frugal::scheduling::SchedulerCore& core) {
    // The arguments are checked before the step changes anything. Across
    // ranks a refused argument still takes part in the step's collective
    // (core.step rethrows it after), so the other ranks fail with it
    // rather than wait for this one.
    frugal_telemetry t{};
    std::exception_ptr refused;
    try {
      frugal::require_non_null(decision, kFn, "decision");
      t = frugal::scheduling::read_telemetry(telemetry);
      if (decision->struct_size < sizeof(size_t) + sizeof(double))
        frugal::fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: decision->struct_size is {}; set it to sizeof(frugal_decision)",
                     kFn, decision->struct_size);
    } catch (...) {
      if (!core.across_ranks()) throw;
      refused = std::current_exception();
    }
    frugal::write_sized(decision, core.step(t, refused), kFn);
  });
}

FRUGAL_API frugal_error* frugal_scheduler_ledger(const frugal_scheduler* scheduler, frugal_cost_ledger* out) {
  constexpr const char* kFn = "frugal_scheduler_ledger";
  return frugal::guard(kFn, [&] {
    frugal::require_non_null(scheduler, kFn, "scheduler");
    frugal::require_non_null(out, kFn, "out");
    frugal::write_sized(out, scheduler->core->ledger(), kFn);
  });
}

FRUGAL_API frugal_error* frugal_scheduler_export_state(frugal_scheduler* scheduler, void* buffer, size_t capacity,
                                                       size_t* size) {
  constexpr const char* kFn = "frugal_scheduler_export_state";
  return with_scheduler(kFn, scheduler, [&](frugal::scheduling::SchedulerCore& core) {
    frugal::require_non_null(size, kFn, "size");
    core.export_state(buffer, capacity, size);
  });
}

FRUGAL_API frugal_error* frugal_scheduler_import_state(frugal_scheduler* scheduler, const void* data, size_t size) {
  constexpr const char* kFn = "frugal_scheduler_import_state";
  return with_scheduler(kFn, scheduler, [&](frugal::scheduling::SchedulerCore& core) {
    frugal::require_non_null(data, kFn, "data");
    core.import_state(std::span(static_cast<const std::byte*>(data), size));
  });
}

FRUGAL_API void frugal_scheduler_destroy(frugal_scheduler* scheduler) { delete scheduler; }

}  // extern "C"
