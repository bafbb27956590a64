/*
 * frugal/schedule_vtable.h — the vtable of FRUGAL_KIND_SCHEDULE strategies
 * (learning-rate schedules), implemented by plugins and called by the core.
 *
 * A schedule maps a training step to a learning rate. Instances are created
 * from options and are independent of each other.
 *
 * Declares no function; safe for plugins.
 */
#ifndef FRUGAL_SCHEDULE_VTABLE_H_
#define FRUGAL_SCHEDULE_VTABLE_H_

#include "frugal/plugin.h"
#include "frugal/types.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Vtable                                                                   */
/* ======================================================================== */

/**
 * Table of a schedule strategy. Owned by the plugin (static), valid until
 * unload. Every v2.0 slot is required (non-NULL). Errors must be made with
 * the host table's error_create. No slot may throw.
 */
typedef struct frugal_schedule_vtable {
  /** sizeof(frugal_schedule_vtable) as built by the plugin. */
  size_t struct_size;

  /**
   * Creates an instance. May run concurrently on several threads.
   *   host:     the plugin's host table (the one given at init); never NULL.
   *   options:  configuration, NULL means all defaults; valid for the
   *             duration of the call only (copy what you keep).
   *   instance: // out, never NULL; opaque plugin-owned state, released by
   *             destroy. Must be set non-NULL on success (a NULL instance
   *             is reported to the host as FRUGAL_ERR_INTERNAL); ignored,
   *             and never destroyed, when an error is returned.
   * Unknown or ill-typed options must be reported as errors.
   */
  frugal_error* (*create)(const frugal_host_api* host, const frugal_options* options, void** instance);

  /**
   * Destroys an instance made by create, exactly once, on whichever thread
   * destroys the host's object; never concurrently with lr on the same
   * instance. The core never passes NULL.
   */
  void (*destroy)(void* instance);

  /**
   * The learning rate at `step` (0-based, >= 0; negative steps are the
   * plugin's to reject with FRUGAL_ERR_OUT_OF_RANGE).
   *   lr: // out, never NULL; must be finite (the core turns a non-finite
   *       value into FRUGAL_ERR_INTERNAL).
   * Thread safety as declared by the strategy's FRUGAL_STRATEGY_* flags.
   */
  frugal_error* (*lr)(void* instance, int64_t step, double* lr);
} frugal_schedule_vtable;

/** Bytes of frugal_schedule_vtable a core requires (through `lr`). */
#define FRUGAL_SCHEDULE_VTABLE_MIN_SIZE (offsetof(frugal_schedule_vtable, lr) + sizeof(void*))

#if FRUGAL_LP64
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_schedule_vtable, create) == 8, schedule_create);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_schedule_vtable, destroy) == 16, schedule_destroy);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_schedule_vtable, lr) == 24, schedule_lr);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_schedule_vtable) == 32, schedule_size);
#endif

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_SCHEDULE_VTABLE_H_ */
