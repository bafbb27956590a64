/*
 * frugal/scheduler.h — the run scheduler (host side): telemetry in,
 * decisions out, a cost ledger, and state that travels in checkpoints.
 *
 * A frugal_scheduler combines an optional LR schedule (a FRUGAL_KIND_SCHEDULE
 * strategy) with any number of cost policies (FRUGAL_KIND_POLICY strategies,
 * e.g. the built-in plugin "policy_cost": checkpoint_cadence, spot_phase,
 * plateau_autoscaler, early_stop). Each step the host passes telemetry
 * (frugal/telemetry.h); the scheduler validates it, books it in the ledger,
 * asks every policy in order and merges their proposals:
 *   - lr:           the schedule's rate at telemetry.step (0 without one);
 *   - checkpoint:   the heaviest proposed; at least a heartbeat on the first
 *                   record of a preemption notice, whatever the policies say;
 *   - resource:     the first policy (in configuration order) with an opinion,
 *                   else what ran over the interval;
 *   - target_nodes: likewise, else the nodes that ran;
 *   - stop:         the first policy that says stop;
 *   - next_due_s:   the earliest time a policy asked for;
 *   - reason:       "policy: why" for each proposal that won a field.
 *
 * Ledger. Every interval is paid at price_per_node_hour x nodes. Its time
 * and dollars are booked as productive, checkpoint stall (the reported
 * stall) or lost. A restart (FRUGAL_TELEMETRY_RESTARTED) books the interval
 * it covers (downtime) as lost and moves the productive time since the last
 * checkpoint to lost. Money is conserved: dollars = productive + stall +
 * lost = spot + reserved, to rounding.
 *
 * Checkpoints. Export the scheduler's state while writing a checkpoint and
 * import it when resuming from that checkpoint: the moment of the export
 * counts as a checkpoint for the ledger (the work before it is kept), in
 * the exporting scheduler and in any that imports the blob, and the
 * restored scheduler answers every later record exactly as the exporting
 * one would.
 *
 * Thread safety: one scheduler is used by one thread at a time (the core
 * does not lock). Distinct schedulers are independent.
 */
#ifndef FRUGAL_SCHEDULER_H_
#define FRUGAL_SCHEDULER_H_

#include "frugal/telemetry.h"
#include "frugal/types.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Configuration                                                            */
/* ======================================================================== */

/**
 * What a scheduler is made of. Read during frugal_scheduler_create only.
 * Fields past a smaller struct_size read as 0 / NULL.
 */
typedef struct frugal_scheduler_config {
  /** sizeof(frugal_scheduler_config) as built by the caller. */
  size_t struct_size;
  /** LR schedule strategy ("name" or "plugin/name"); NULL: no schedule (lr 0). */
  const char* schedule;
  /** Options of the schedule; NULL for its defaults. */
  const frugal_options* schedule_options;
  /** policy_count policy strategy names, in priority order; NULL only when policy_count is 0. */
  const char* const* policies;
  /** NULL (all defaults) or policy_count entries, each NULL or the options of that policy. */
  const frugal_options* const* policy_options;
  /** Number of policies (at most 64). */
  size_t policy_count;
  /** GPUs per node, for the ledger's GPU-hours; 0 means 1. */
  uint32_t gpus_per_node;
  /** Must be 0. */
  uint32_t reserved0;
} frugal_scheduler_config;

/* ======================================================================== */
/* Cost ledger                                                              */
/* ======================================================================== */

/**
 * Where the money and the time went, from the job clock's 0 to the last
 * record. Productive time since the last checkpoint counts as productive
 * until a restart loses it.
 */
typedef struct frugal_cost_ledger {
  /** Set by the caller; the core fills the fields inside it. */
  size_t struct_size;
  /** Dollars paid in all. */
  double dollars;
  /** Dollars paid on spot capacity. */
  double spot_dollars;
  /** Dollars paid on reserved capacity. */
  double reserved_dollars;
  /** Dollars that paid for training that was kept. */
  double productive_dollars;
  /** Dollars that paid for checkpoint stalls. */
  double stall_dollars;
  /** Dollars that paid for lost work and restart downtime. */
  double lost_dollars;
  /** Node count x GPUs per node x hours, summed over the intervals. */
  double gpu_hours;
  /** Job-clock seconds covered (the last record's wall_time_s). */
  double wall_s;
  /** Seconds of training that was kept. */
  double productive_s;
  /** Seconds stalled for checkpoints. */
  double stall_s;
  /** Seconds lost: work undone by restarts, and the downtime before them. */
  double lost_s;
  /** Restarts reported (FRUGAL_TELEMETRY_RESTARTED records). */
  int64_t restarts;
  /** Full checkpoints reported done. */
  int64_t checkpoints_full;
  /** Heartbeat checkpoints reported done. */
  int64_t checkpoints_heartbeat;
  /** The first training loss reported (0 before any; records flagged FRUGAL_TELEMETRY_NO_LOSS do not count). */
  double loss_first;
  /** The lowest smoothed training loss so far (EMA, alpha 0.1, seeded with the first loss). */
  double loss_best;
  /** dollars / (loss_first - loss_best): the price of one unit of loss; 0 until the loss improves. */
  double dollars_per_loss;
} frugal_cost_ledger;

/* ======================================================================== */
/* Schedulers                                                               */
/* ======================================================================== */

/** A run scheduler; owned by its creator, destroyed with frugal_scheduler_destroy. */
typedef struct frugal_scheduler frugal_scheduler;

/**
 * Creates a scheduler: instances of the schedule and of every policy. The
 * scheduler does not reference the context afterwards.
 *   context: not NULL; with the providing plugins loaded.
 *   config:  not NULL; see frugal_scheduler_config. A name that is not
 *            found is FRUGAL_ERR_NOT_FOUND; a plugin's option error is
 *            prefixed with "policy 'name': " or "schedule 'name': ".
 *   out:     // out, not NULL; owned by the caller.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_scheduler_create(frugal_context* context,
                                                                  const frugal_scheduler_config* config,
                                                                  frugal_scheduler** out);

/**
 * Books one telemetry record and decides.
 *   telemetry: not NULL; validated first: a malformed record is
 *              FRUGAL_ERR_INVALID_ARGUMENT naming the field and value, and
 *              changes nothing.
 *   decision:  // out, not NULL; the caller sets struct_size, the core
 *              fills every field inside it. Its reason string is valid
 *              until the next call on this scheduler.
 * A policy's error is returned prefixed with "policy 'name': "; the
 * scheduler is then failed (later steps are FRUGAL_ERR_FAILED_PRECONDITION)
 * until frugal_scheduler_import_state restores a state.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_scheduler_step(frugal_scheduler* scheduler,
                                                                const frugal_telemetry* telemetry,
                                                                frugal_decision* decision);

/**
 * Copies the ledger.
 *   out: // out, not NULL; the caller sets struct_size.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_scheduler_ledger(const frugal_scheduler* scheduler,
                                                                  frugal_cost_ledger* out);

/**
 * Serialises the scheduler (its own counters, the ledger and every
 * policy's state) into a versioned, checksummed blob. A successful export
 * into a buffer counts as a checkpoint for the ledger (the size query does
 * not).
 *   buffer:   capacity bytes, or NULL to query the size.
 *   size:     // out, not NULL; the blob's size. When capacity is too small,
 *             *size is set and FRUGAL_ERR_OUT_OF_RANGE returned.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_scheduler_export_state(frugal_scheduler* scheduler, void* buffer,
                                                                        size_t capacity, size_t* size);

/**
 * Restores a blob exported by a scheduler with the same configuration (the
 * same policies in the same order). A truncated, corrupt or mismatched blob
 * is FRUGAL_ERR_DATA_CORRUPTED or FRUGAL_ERR_INVALID_ARGUMENT naming what is
 * wrong, and leaves the scheduler as it was.
 *   data: not NULL.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_scheduler_import_state(frugal_scheduler* scheduler, const void* data,
                                                                        size_t size);

/** Destroys a scheduler and its strategy instances. NULL allowed. */
FRUGAL_API void frugal_scheduler_destroy(frugal_scheduler* scheduler);

#if FRUGAL_LP64
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_scheduler_config, schedule) == 8, scheduler_config_schedule);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_scheduler_config, schedule_options) == 16, scheduler_config_schedule_options);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_scheduler_config, policies) == 24, scheduler_config_policies);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_scheduler_config, policy_options) == 32, scheduler_config_policy_options);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_scheduler_config, policy_count) == 40, scheduler_config_policy_count);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_scheduler_config, gpus_per_node) == 48, scheduler_config_gpus_per_node);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_scheduler_config) == 56, scheduler_config_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_cost_ledger, dollars) == 8, ledger_dollars);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_cost_ledger, gpu_hours) == 56, ledger_gpu_hours);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_cost_ledger, restarts) == 96, ledger_restarts);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_cost_ledger, loss_first) == 120, ledger_loss_first);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_cost_ledger, dollars_per_loss) == 136, ledger_dollars_per_loss);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_cost_ledger) == 144, ledger_size);
#endif

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_SCHEDULER_H_ */
