/*
 * frugal/telemetry.h — what a training job reports each step (telemetry)
 * and what the run scheduler and its policies answer (decisions).
 *
 * Shared by the host side (frugal/scheduler.h) and by FRUGAL_KIND_POLICY
 * plugins (frugal/policy_vtable.h). Declares no function; safe for plugins.
 *
 * Time. `wall_time_s` is the job's own clock: seconds since the job first
 * started, counting every second the job existed (running, stalled for a
 * checkpoint, waiting for capacity after a preemption). It never goes back,
 * not even across a restart from a checkpoint: a host persists its job
 * start time outside the checkpoint (or uses a wall clock).
 *
 * Intervals. A telemetry record covers the interval from the previous
 * record's wall_time_s to its own; its price, node count and resource class
 * are what was paid for over that interval.
 */
#ifndef FRUGAL_TELEMETRY_H_
#define FRUGAL_TELEMETRY_H_

#include "frugal/types.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Enumerations                                                             */
/* ======================================================================== */

/* Checkpoints are named by frugal_ckpt_kind_values (frugal/types.h):
   FRUGAL_CKPT_NONE, FRUGAL_CKPT_HEARTBEAT, FRUGAL_CKPT_FULL, the kinds the
   checkpoint engine saves. */

/** Capacity classes a job can run on. Carried as int32_t. */
enum frugal_resource_class_values {
  FRUGAL_RESOURCE_UNSPECIFIED = 0, /**< In a policy proposal: no opinion. Invalid in telemetry. */
  FRUGAL_RESOURCE_SPOT = 1,        /**< Preemptible capacity (spot / preemptible VMs). */
  FRUGAL_RESOURCE_RESERVED = 2     /**< Capacity that is not preempted (reserved or on-demand). */
};

/** Why a decision says stop. 0 means keep training. Carried as int32_t. */
enum frugal_stop_reason_values {
  FRUGAL_STOP_NONE = 0,    /**< Keep training. */
  FRUGAL_STOP_PLATEAU = 1, /**< Early stopping: the watched loss stopped improving (patience spent). */
  FRUGAL_STOP_TARGET = 2,  /**< A target (loss, tokens, steps) was reached. */
  FRUGAL_STOP_BUDGET = 3,  /**< A budget (dollars, hours) is spent. */
  FRUGAL_STOP_POLICY = 4   /**< Another policy-specific reason; see the decision's reason text. */
};

/** frugal_telemetry.flags: eval_loss holds a validation loss measured at this step. */
#define FRUGAL_TELEMETRY_EVAL_LOSS 1u
/**
 * frugal_telemetry.flags: the first record after a restart (a preemption,
 * a crash). The interval it covers is lost time, and so is the training
 * since the last checkpoint the scheduler knows of. The step may be lower
 * than the previous record's (training resumed from a checkpoint).
 */
#define FRUGAL_TELEMETRY_RESTARTED 2u
/**
 * frugal_telemetry.flags: there is no training loss at this step yet (the
 * first steps before a loss is computed, a host that reports the loss less
 * often than it reports steps). When set, `loss` is ignored
 * (any value, NaN included, is accepted) and the step is no loss
 * observation: the ledger's loss figures, early stopping, loss windows and
 * trend tests skip it. Policies see loss 0 on such a record.
 */
#define FRUGAL_TELEMETRY_NO_LOSS 4u

/* ======================================================================== */
/* Telemetry                                                                */
/* ======================================================================== */

/**
 * One step's report. Set struct_size to sizeof(frugal_telemetry); fields
 * past a smaller struct_size read as 0. The scheduler rejects a record with
 * FRUGAL_ERR_INVALID_ARGUMENT naming the field when a value is out of range
 * (a NaN loss, time going back, a negative price, no nodes).
 */
typedef struct frugal_telemetry {
  /** sizeof(frugal_telemetry) as built by the caller. */
  size_t struct_size;
  /** FRUGAL_TELEMETRY_* bits; unknown bits are an error. */
  uint32_t flags;
  /** Nodes that ran over the interval (>= 1). */
  uint32_t nodes;
  /**
   * Optimizer steps completed (>= 0); the decision's lr is for the step
   * with this 0-based index. Never lower than the previous record's unless
   * FRUGAL_TELEMETRY_RESTARTED is set.
   */
  int64_t step;
  /** Tokens trained so far (>= 0); same ordering rule as step. */
  int64_t tokens;
  /** Training loss at this step; finite. Ignored when flags has FRUGAL_TELEMETRY_NO_LOSS. */
  double loss;
  /** Validation loss (finite) when flags has FRUGAL_TELEMETRY_EVAL_LOSS; otherwise ignored. */
  double eval_loss;
  /** The job clock in seconds (see the header comment); finite, >= 0, never lower than before. */
  double wall_time_s;
  /** Dollars per node-hour paid over the interval; finite, >= 0. */
  double price_per_node_hour;
  /** frugal_resource_class_values: what the nodes ran on over the interval (SPOT or RESERVED). */
  int32_t resource;
  /** frugal_ckpt_kind_values: the checkpoint that completed during the interval (FRUGAL_CKPT_NONE if none). */
  int32_t checkpoint_done;
  /** Seconds training stalled for that checkpoint (>= 0; 0 when none); at most the interval. */
  double checkpoint_stall_s;
  /**
   * Seconds until the cloud reclaims the nodes, from a preemption notice
   * (AWS gives 120 s, GCP 30 s); 0 when there is none. Finite, >= 0.
   */
  double preemption_notice_s;
} frugal_telemetry;

/* ======================================================================== */
/* Decisions                                                                */
/* ======================================================================== */

/**
 * What to do next. The scheduler fills every field of a decision it
 * returns (up to the caller's struct_size). A policy fills a *proposal*:
 * a decision the scheduler zeroes before the call, where 0 in a field means
 * "no opinion" (lr is the schedule's and ignored in proposals).
 */
typedef struct frugal_decision {
  /** sizeof(frugal_decision) as built by whoever allocated it. */
  size_t struct_size;
  /** Learning rate for the step telemetry.step (0 when the scheduler has no schedule). */
  double lr;
  /** frugal_ckpt_kind_values: the checkpoint to take now (pass it to frugal_ckpt_save as is), or FRUGAL_CKPT_NONE. */
  int32_t checkpoint;
  /** frugal_resource_class_values: what to run on from now. */
  int32_t resource;
  /** Nodes to run with from now (>= 1 in a scheduler decision). */
  uint32_t target_nodes;
  /** frugal_stop_reason_values; FRUGAL_STOP_NONE keeps training. */
  int32_t stop;
  /**
   * Job-clock time by which the next telemetry is wanted (a checkpoint or
   * another decision falls due then); 0 when nothing is due. Hosts that
   * report every step can ignore it; simulators step to it.
   */
  double next_due_s;
  /**
   * Why, in words: one "policy: explanation" clause per field a policy set,
   * separated by "; ", or "" when nothing changed. NUL-terminated, never
   * NULL in a scheduler decision. In a scheduler decision it is owned by
   * the scheduler and valid until the next call on it; in a proposal it is
   * owned by the policy instance and valid until its next call (NULL: no
   * explanation).
   */
  const char* reason;
} frugal_decision;

#if FRUGAL_LP64
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_telemetry, flags) == 8, telemetry_flags);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_telemetry, nodes) == 12, telemetry_nodes);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_telemetry, step) == 16, telemetry_step);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_telemetry, tokens) == 24, telemetry_tokens);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_telemetry, loss) == 32, telemetry_loss);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_telemetry, eval_loss) == 40, telemetry_eval_loss);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_telemetry, wall_time_s) == 48, telemetry_wall_time_s);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_telemetry, price_per_node_hour) == 56, telemetry_price);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_telemetry, resource) == 64, telemetry_resource);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_telemetry, checkpoint_done) == 68, telemetry_checkpoint_done);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_telemetry, checkpoint_stall_s) == 72, telemetry_checkpoint_stall_s);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_telemetry, preemption_notice_s) == 80, telemetry_preemption_notice_s);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_telemetry) == 88, telemetry_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_decision, lr) == 8, decision_lr);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_decision, checkpoint) == 16, decision_checkpoint);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_decision, resource) == 20, decision_resource);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_decision, target_nodes) == 24, decision_target_nodes);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_decision, stop) == 28, decision_stop);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_decision, next_due_s) == 32, decision_next_due_s);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_decision, reason) == 40, decision_reason);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_decision) == 48, decision_size);
#endif

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_TELEMETRY_H_ */
