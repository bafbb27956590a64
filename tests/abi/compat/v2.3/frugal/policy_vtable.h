/*
 * frugal/policy_vtable.h — the vtable of FRUGAL_KIND_POLICY strategies:
 * cost policies (checkpoint cadence, spot/reserved phases, autoscaling,
 * early stopping) that a run scheduler consults every step.
 *
 * A policy reads the step's telemetry and fills a proposal: the fields it
 * has an opinion on (checkpoint, resource class, node count, stop), each
 * with a short reason. The scheduler merges the proposals of its policies
 * (frugal/scheduler.h) into one decision. Policies keep state (loss
 * windows, timers, counters); it travels in checkpoints through
 * export_state / import_state and must restore exactly: an instance that
 * imported a blob answers every later telemetry as the exporting instance
 * would have.
 *
 * Restarts. A record with FRUGAL_TELEMETRY_RESTARTED follows a restart from
 * the last checkpoint; its step may be lower than the last one the policy
 * saw. Timers that measure "since the last checkpoint" restart then (the
 * job resumed from one).
 *
 * Declares no function; safe for plugins.
 */
#ifndef FRUGAL_POLICY_VTABLE_H_
#define FRUGAL_POLICY_VTABLE_H_

#include "frugal/plugin.h"
#include "frugal/telemetry.h"
#include "frugal/types.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Vtable                                                                   */
/* ======================================================================== */

/**
 * Table of a policy strategy. Owned by the plugin (static), valid until
 * unload. Every slot is required. Errors are made with the host table's
 * error_create. No slot may throw. A scheduler calls one instance from one
 * thread at a time; create may run concurrently.
 */
typedef struct frugal_policy_vtable {
  /** sizeof(frugal_policy_vtable) as built by the plugin. */
  size_t struct_size;

  /**
   * Creates an instance.
   *   host:     never NULL.
   *   options:  the strategy's options; may be NULL (defaults); read during
   *             the call only. Unknown or ill-typed options must be errors.
   *   instance: // out, never NULL; non-NULL on success.
   */
  frugal_error* (*create)(const frugal_host_api* host, const frugal_options* options, void** instance);

  /** Destroys an instance, exactly once, never concurrently with another slot on it. */
  void (*destroy)(void* instance);

  /**
   * Reads one telemetry record (already validated by the scheduler: finite
   * values, time and steps in order) and proposes. A record flagged
   * FRUGAL_TELEMETRY_NO_LOSS carries no loss: its loss
   * reads 0 and is not an observation.
   *   telemetry: never NULL; valid during the call.
   *   proposal:  // out, never NULL; zeroed by the scheduler (struct_size
   *              set); 0 in a field means no opinion. `reason`, when set,
   *              must stay valid until the next call on this instance.
   * Called once per record, in order; never called again with the same
   * record after an error.
   */
  frugal_error* (*decide)(void* instance, const frugal_telemetry* telemetry, frugal_decision* proposal);

  /**
   * Serialises the instance's state.
   *   buffer: capacity bytes, or NULL to query the size.
   *   size:   // out, never NULL; the blob's size. When capacity is too
   *           small, set it and return FRUGAL_ERR_OUT_OF_RANGE.
   * The blob must be versioned and self-checking.
   */
  frugal_error* (*export_state)(void* instance, void* buffer, size_t capacity, size_t* size);

  /**
   * Restores export_state's blob into an instance created with the same
   * options. A corrupt or mismatched blob is an error and leaves the
   * instance unchanged.
   */
  frugal_error* (*import_state)(void* instance, const void* data, size_t size);
} frugal_policy_vtable;

/** Bytes of frugal_policy_vtable a core requires (through `import_state`). */
#define FRUGAL_POLICY_VTABLE_MIN_SIZE (offsetof(frugal_policy_vtable, import_state) + sizeof(void*))

#if FRUGAL_LP64
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_policy_vtable, create) == 8, policy_create);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_policy_vtable, destroy) == 16, policy_destroy);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_policy_vtable, decide) == 24, policy_decide);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_policy_vtable, export_state) == 32, policy_export_state);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_policy_vtable, import_state) == 40, policy_import_state);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_policy_vtable) == 48, policy_vtable_size);
#endif

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_POLICY_VTABLE_H_ */
