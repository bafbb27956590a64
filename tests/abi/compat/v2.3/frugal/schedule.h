/*
 * frugal/schedule.h — learning-rate schedule objects (host side).
 *
 * A frugal_schedule is an instance of a FRUGAL_KIND_SCHEDULE strategy from
 * a loaded plugin. It keeps its plugin loaded until destroyed, even after
 * the context that created it is gone.
 *
 * Thread safety: frugal_schedule_lr may be called concurrently on one
 * schedule only when the strategy has FRUGAL_STRATEGY_THREAD_SAFE;
 * otherwise the caller serialises (the core does not). frugal_schedule_destroy
 * must not race any other call on the same schedule. Distinct schedules
 * are independent, and frugal_schedule_create may run on several threads.
 */
#ifndef FRUGAL_SCHEDULE_H_
#define FRUGAL_SCHEDULE_H_

#include "frugal/types.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Schedule objects                                                         */
/* ======================================================================== */

/** An LR schedule instance; owned by its creator, destroyed with frugal_schedule_destroy. */
typedef struct frugal_schedule frugal_schedule;

/**
 * Creates a schedule. The schedule does not reference the context
 * afterwards and may outlive it.
 *   context: not NULL; a context with the providing plugin loaded.
 *   name:    not NULL; strategy name, "name" or "plugin/name"
 *            (FRUGAL_ERR_NOT_FOUND when absent).
 *   options: configuration (see the strategy's docs), NULL for defaults;
 *            only read during the call.
 *   out:     // out, not NULL; owned by the caller.
 * Errors from the plugin are prefixed with "schedule 'name': ".
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_schedule_create(frugal_context* context, const char* name,
                                                                 const frugal_options* options, frugal_schedule** out);

/**
 * The learning rate at `step` (>= 0; the core passes negative steps to the
 * plugin, which should reject them with FRUGAL_ERR_OUT_OF_RANGE). A
 * non-finite rate from the plugin is FRUGAL_ERR_INTERNAL.
 *   schedule: not NULL.
 *   lr:       // out, not NULL; receives a finite value.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_schedule_lr(frugal_schedule* schedule, int64_t step, double* lr);

/**
 * Destroys a schedule; may unload its plugin (on the calling thread) if
 * nothing else uses it. NULL allowed.
 */
FRUGAL_API void frugal_schedule_destroy(frugal_schedule* schedule);

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_SCHEDULE_H_ */
