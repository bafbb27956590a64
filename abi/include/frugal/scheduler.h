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
 * Across ranks (ABI 2.4). A scheduler created with a comm
 * (frugal_scheduler_config.comm) makes one decision for the whole job:
 * every rank calls frugal_scheduler_step with its own telemetry, and every
 * rank gets the same decision, reason and ledger, bit for bit. How: each
 * step is one all-gather of every rank's record (a fixed 112-byte packet),
 * and every rank reduces the gathered records itself, in rank order, into
 * one job record, then runs its own schedule and policies on it. The
 * decision is made everywhere on identical inputs rather than on rank 0
 * and broadcast, because
 *   - it costs one collective per step, not a gather and a broadcast (and
 *     a second broadcast for the reason text);
 *   - every rank then holds the whole scheduler (ledger, policy states):
 *     the state blob is the same bytes on every rank and has no
 *     world-size part, so a job restarted on another number of ranks
 *     (target_nodes, below) imports any rank's blob, and
 *     frugal_ckpt_register_scheduler saves a state every rank agrees on;
 *   - a failure (a refused record, a policy error, a dead rank) is seen by
 *     every rank at the same step, so no rank goes on alone.
 * It relies on the schedule and the policies being deterministic (the
 * built-in ones are: the same records give the same bits): every rank must
 * load the same plugins with the same options. Create checks the names
 * (schedule, policies, gpus_per_node; options are the host's to keep
 * equal), and each step's packet carries a checksum of what its rank
 * decided the step before (decision, reason, ledger; after an import, of
 * the imported blob), so ranks that diverge (a policy that reads a clock
 * or a random source, other plugin builds or options, other states
 * imported) are refused on every rank one step later: FRUGAL_ERR_INTERNAL
 * naming the first rank that differs from rank 0, and the scheduler is
 * failed on every rank until every rank imports a state.
 *
 * The job record, from the ranks' records (r = 0 .. size-1, in that order):
 *   - step: must be the same on every rank, else every rank's step is
 *     FRUGAL_ERR_INVALID_ARGUMENT naming the first rank that differs from
 *     rank 0 (the ranks are not at the same step of training);
 *   - tokens: the sum (each rank reports the tokens it trained);
 *   - loss: the mean over the ranks with a loss, weighted by each rank's
 *     tokens: the sum, in rank order, of (tokens_r / T) x loss_r, T the
 *     tokens of the ranks with a loss; when T is 0, of (1 / k) x loss_r
 *     over those k ranks (the plain mean). FRUGAL_TELEMETRY_NO_LOSS only
 *     when no rank has a loss (the job record's loss is then 0).
 *     telemetry.tokens counts tokens since the job started, so with ranks
 *     that keep their share of the batch the weights are each step's share;
 *     per-interval weights would need every rank's previous record in the
 *     state blob, which would then depend on the world size;
 *   - eval_loss: the plain mean over the k ranks that flag
 *     FRUGAL_TELEMETRY_EVAL_LOSS (the sum of (1 / k) x eval_loss_r); the
 *     flag when any rank has it;
 *   - wall_time_s: the latest (the slowest rank ends the step);
 *   - FRUGAL_TELEMETRY_RESTARTED: when any rank has it;
 *   - checkpoint_done: the heaviest any rank reports; checkpoint_stall_s:
 *     the longest (the job waits for the slowest rank); with several
 *     ranks at most the job record's interval (their clocks differ a
 *     little);
 *   - preemption_notice_s: the shortest notice any rank has (0 when none):
 *     a notice on one rank is a notice for the job, so on its first record
 *     every rank's decision asks for the emergency checkpoint (at least a
 *     heartbeat, as for one process) at the same step. Pass the decision's
 *     checkpoint to frugal_ckpt_emergency_save on every rank: with an engine
 *     created with the same ranks' comm it is collective, and the ranks
 *     agree as frugal_ckpt_preemption_agree (ABI 2.3) makes them agree; a
 *     host that learns of notices from frugal_preemption_pending puts its
 *     notice in that rank's telemetry and needs no separate agreement;
 *   - nodes, price_per_node_hour and resource: rank 0's. They describe
 *     the job's capacity, which a host may read on one node only (other
 *     ranks may pass the same values or any valid ones).
 * Every rank first checks its own record as one process would (ranges,
 * flags, a stall with no checkpoint); the job record is then checked
 * against the previous job record (time and progress in order). A rank's
 * refused record makes the step fail on every rank (on that rank with its
 * own message, elsewhere FRUGAL_ERR_INVALID_ARGUMENT naming the rank) and
 * changes nothing on any rank, so the ranks stay in step. A single-process
 * scheduler fed the job records answers exactly as every rank does.
 *
 * target_nodes across ranks: the decision's node count is the job's, the
 * same on every rank. The scheduler never changes the world size itself:
 * a host obeys by saving a checkpoint (every rank, the same step), ending
 * the job and starting it again on target_nodes nodes: a new comm, a new
 * scheduler over it, the state imported from the checkpoint (sharded
 * checkpoints restore on any number of ranks). The blob has no world-size
 * part, so rank 0's serves every rank of the new job; a rank the old job
 * did not have gets no scheduler state back from the checkpoint engine
 * (states are rank-local there) and imports rank 0's (e.g. broadcast over
 * the new comm) before the first step.
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
  /* Appended in ABI 2.4 (the 2.3 struct ends above). A library of ABI 2.3
     does not read it and would run one process's scheduler on each rank,
     each deciding on its own telemetry: a host that sets it checks
     frugal_abi_version() for minor >= 4 at start-up. */
  /**
   * The job's ranks (frugal/comm.h), or NULL for one process (the
   * scheduler of ABI 2.3, unchanged). With a comm, frugal_scheduler_create
   * is collective over it: every rank creates its scheduler with the same
   * schedule, policies and options. The scheduler splits a private
   * sub-group from it (so its collectives never meet the host's) and keeps
   * that, not the caller's handle: the caller may destroy its comm at once.
   * The sub-group starts with the comm's deadline (frugal_comm_set_timeout);
   * each frugal_scheduler_step is then one collective within it (see
   * "Across ranks" above). The comm must take host memory (mpi, local):
   * a comm_nccl comm is FRUGAL_ERR_INVALID_ARGUMENT.
   */
  frugal_comm* comm;
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
 * scheduler does not reference the context afterwards. With config->comm
 * (ABI 2.4) collective over it: it splits the scheduler's sub-group (a
 * failed split is the comm's error, prefixed "scheduler: "), then the
 * ranks agree on what they created, so create fails on every rank or on
 * none: a rank whose schedule or policies fail to create returns its own
 * error, the others FRUGAL_ERR_FAILED_PRECONDITION naming it; a rank
 * configured with another schedule, other policies or another
 * gpus_per_node than rank 0 is FRUGAL_ERR_INVALID_ARGUMENT on every rank.
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
 * With a comm (ABI 2.4): collective, one all-gather on the scheduler's
 * own sub-group (so its order against the host's collectives does not
 * matter); every rank calls it once per record, also when its arguments
 * are refused (the call still takes part, so the other ranks fail with it
 * rather than wait). telemetry is this rank's record, the decision the
 * job's (see "Across ranks"). A failed collective (a rank that died or
 * did not call before the comm's deadline) returns the comm's error,
 * FRUGAL_ERR_IO or FRUGAL_ERR_DEADLINE_EXCEEDED, prefixed with "scheduler
 * across N ranks, rank R: telemetry all_gather at step S: ", and changes
 * nothing in the scheduler; its sub-group is then broken (every later step
 * fails at once with FRUGAL_ERR_FAILED_PRECONDITION quoting the first
 * failure): end the process, or import the state into a scheduler on a
 * new comm. A failed
 * scheduler on any rank makes the step FRUGAL_ERR_FAILED_PRECONDITION on
 * every rank, and fails every rank's scheduler.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_scheduler_step(frugal_scheduler* scheduler,
                                                                const frugal_telemetry* telemetry,
                                                                frugal_decision* decision);

/**
 * Copies the ledger. Local (no collective, also with a comm).
 *   out: // out, not NULL; the caller sets struct_size.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_scheduler_ledger(const frugal_scheduler* scheduler,
                                                                  frugal_cost_ledger* out);

/**
 * Serialises the scheduler (its own counters, the ledger and every
 * policy's state) into a versioned, checksummed blob. A successful export
 * into a buffer counts as a checkpoint for the ledger (the size query does
 * not). Local, also with a comm: every rank's blob is the same bytes when
 * every rank exports after the same step (a collective checkpoint save
 * does), and has no per-rank or world-size part.
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
 * wrong, and leaves the scheduler as it was. Local, also with a comm: a
 * blob from a job of any number of ranks, or of one process, imports; with
 * a comm every rank imports the same blob (the next step checks that they
 * did).
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
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_scheduler_config, reserved0) == 52, scheduler_config_reserved0);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_scheduler_config, comm) == 56, scheduler_config_comm);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_scheduler_config) == 64, scheduler_config_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_cost_ledger, dollars) == 8, ledger_dollars);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_cost_ledger, gpu_hours) == 56, ledger_gpu_hours);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_cost_ledger, restarts) == 96, ledger_restarts);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_cost_ledger, loss_first) == 120, ledger_loss_first);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_cost_ledger, dollars_per_loss) == 136, ledger_dollars_per_loss);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_cost_ledger) == 144, ledger_size);
#endif

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_SCHEDULER_H_ */
