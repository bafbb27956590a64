/*
 * frugal/router.h — mixture-of-experts routing (host side).
 *
 * A frugal_router is an instance of a FRUGAL_KIND_ROUTER strategy. The
 * built-in plugin "router_moe" provides three:
 *   - "topk_softmax": softmax over the experts, top-k, the Switch / GShard
 *     load-balancing loss and the router z-loss;
 *   - "deepseek_v3": sigmoid (or softmax) scores, a selection-only bias
 *     moved by frugal_router_update (aux-loss-free balancing), group-limited
 *     routing, weights from the unbiased scores, route_scale;
 *   - "expert_choice": each expert takes its best tokens.
 * Token-choice routers take a capacity factor and a drop policy, or route
 * dropless. All routing math runs in fp32.
 *
 * A training step:
 *   1. frugal_router_plan_shape(T) gives the plan's sizes; allocate the
 *      plan tensors (frugal_route_plan) once per T;
 *   2. frugal_router_route(logits -> plan);
 *   3. frugal_router_permute(x [T, H] -> x_perm [R, H]); run each expert on
 *      its rows [expert_offsets[e], expert_offsets[e + 1]);
 *   4. frugal_router_combine(y_perm [R, H] -> y [T, H]);
 *   5. once per optimizer step, frugal_router_update(expert_demand summed
 *      over the micro-batches and ranks) for routers with a bias.
 *
 * Tensors. Logits are [T, E] (or any N-D tensor whose leading dimensions
 * collapse into T rows); activations [rows, H] likewise; the last dimension
 * contiguous, rows may be padded. Plan tensors are compact. Every tensor of
 * a call lives on one device (host or one CUDA device). Wrong dtypes,
 * shapes, strides or devices are FRUGAL_ERR_INVALID_ARGUMENT or
 * FRUGAL_ERR_UNSUPPORTED with a message naming the tensor.
 *
 * Plan checks. After routing on host tensors the core verifies the plan
 * the plugin wrote before returning: offsets rise from 0 to N, every row
 * belongs to one token and appears once in the token index, tokens rise
 * inside each expert, slots and the dropped mask agree, capacity is kept.
 * A plugin bug is reported as FRUGAL_ERR_INTERNAL instead of silently
 * dropping or duplicating tokens. Device plans are checked against the CPU
 * path by the GPU tests instead.
 *
 * Thread safety: calls on one router may run concurrently when its
 * strategy has FRUGAL_STRATEGY_THREAD_SAFE (router_moe's do: route and
 * the moves read the bias under a lock that update takes). Destroy must
 * not race other calls on the same object.
 */
#ifndef FRUGAL_ROUTER_H_
#define FRUGAL_ROUTER_H_

#include "frugal/router_vtable.h"
#include "frugal/types.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Arguments: what a host passes                                            */
/* ======================================================================== */

/*
 * The host's side of each call. Tensors follow the rules at the top of this
 * file (N-D logits and activations whose leading dimensions collapse into
 * rows, padded rows, plan tensors of any compact shape with their element
 * count, byte_offset honoured); the core checks them and hands the plugin
 * normalised copies (frugal_route_call, frugal_route_move_call,
 * frugal/router_vtable.h). Caller-owned, read during the call only (CUDA:
 * the tensors' memory must stay valid until the work queued on `stream`
 * completes).
 */

/** One route: logits -> plan. */
typedef struct frugal_route_args {
  /** sizeof(frugal_route_args); at least through `plan`. */
  size_t struct_size;
  /** [T, E] (or N-D collapsing into T rows) FLOAT32, BFLOAT16 or FLOAT16, finite; not NULL. */
  const frugal_tensor* logits;
  /**
   * The plan to write, with the shapes of frugal_router_plan_shape(T), on
   * the logits' device; not NULL. For expert choice the token-choice
   * members (expert_ids, weights, dropped, slot_row) may be NULL.
   */
  const frugal_route_plan* plan;
  /** cudaStream_t for CUDA tensors (NULL: the default stream); NULL for host tensors. A smaller struct_size means NULL.
   */
  void* stream;
} frugal_route_args;

/** One permute or combine (see frugal_router_permute, frugal_router_combine). */
typedef struct frugal_route_move_args {
  /** sizeof(frugal_route_move_args); at least through `output`. */
  size_t struct_size;
  /** The plan frugal_router_route wrote on this router; not NULL. */
  const frugal_route_plan* plan;
  /** FLOAT32 or BFLOAT16: [T, H] for permute, [R, H] for combine; not NULL. */
  const frugal_tensor* input;
  /** The input's dtype: [R, H] for permute, [T, H] for combine; not NULL; must not overlap input. */
  const frugal_tensor* output;
  /** As in frugal_route_args. */
  void* stream;
} frugal_route_move_args;

#if FRUGAL_LP64
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_args, logits) == 8, route_logits);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_args, plan) == 16, route_plan);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_args, stream) == 24, route_stream);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_route_args) == 32, route_args_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_move_args, plan) == 8, route_move_plan);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_move_args, input) == 16, route_move_input);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_move_args, output) == 24, route_move_output);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_move_args, stream) == 32, route_move_stream);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_route_move_args) == 40, route_move_size);
#endif

/* ======================================================================== */
/* Routers                                                                  */
/* ======================================================================== */

/** A router instance; owned by its creator, destroyed with frugal_router_destroy. */
typedef struct frugal_router frugal_router;

/**
 * Creates a router. It does not reference the context afterwards.
 *   context: not NULL; a context with the providing plugin loaded.
 *   name:    not NULL; "name" or "plugin/name" (e.g. "router_moe/deepseek_v3").
 *   options: the strategy's options, NULL for defaults; read during the
 *            call only. router_moe's are listed in the README and by
 *            `frugal plugins`.
 *   out:     // out, not NULL; owned by the caller.
 * Errors from the plugin are prefixed with "router 'name': ".
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_router_create(frugal_context* context, const char* name,
                                                               const frugal_options* options, frugal_router** out);

/**
 * The router's choice kind, experts, top_k, drop policy and capacity factor.
 *   out: // out, not NULL; the caller sets struct_size, the core fills up to it.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_router_layout(const frugal_router* router, frugal_route_layout* out);

/** The sizes of a plan for T tokens (frugal_router_plan_shape). */
typedef struct frugal_route_shape {
  /** sizeof(frugal_route_shape) as built by the caller. */
  size_t struct_size;
  /** T, as asked. */
  int64_t tokens;
  /** Rows per expert at most; 0 when dropless. */
  int64_t capacity;
  /** R: the length of row_token, row_weight, token_rows and the permuted activations' rows. */
  int64_t max_rows;
} frugal_route_shape;

/**
 * The plan's sizes for `tokens` tokens (formulas in frugal/router_vtable.h).
 *   tokens: >= 1.
 *   out:    // out, not NULL; struct_size set by the caller.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_router_plan_shape(const frugal_router* router, int64_t tokens,
                                                                   frugal_route_shape* out);

/**
 * Routes logits into a plan. Host tensors complete before return (and the
 * plan is checked, see above); CUDA tensors are queued on args->stream.
 *   args: not NULL; struct_size set; read during the call only.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_router_route(frugal_router* router, const frugal_route_args* args);

/**
 * Gathers activation rows into the plan's expert-major order: input
 * [T, H] -> output [R, H] (FLOAT32 or BFLOAT16, both the same dtype).
 *   args: not NULL; the plan as written by frugal_router_route.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_router_permute(frugal_router* router,
                                                                const frugal_route_move_args* args);

/**
 * Weighted scatter-add back to token order: input [R, H] -> output [T, H],
 * fp32 accumulation in the plan's token_rows order, so results are
 * deterministic and equal on every device.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_router_combine(frugal_router* router,
                                                                const frugal_route_move_args* args);

/**
 * One aux-loss-free bias step from the experts' loads.
 *   expert_load: not NULL; [E] INT64 in host memory, each >= 0.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_router_update(frugal_router* router, const frugal_tensor* expert_load);

/** A plan's load statistics (frugal_router_stats). */
typedef struct frugal_route_stats {
  /** sizeof(frugal_route_stats) as built by the caller. */
  size_t struct_size;
  /** T. */
  int64_t tokens;
  /** Assignments asked for: T * top_k (token choice) or E * capacity (expert choice). */
  int64_t assignments;
  /** N: rows kept. */
  int64_t kept;
  /** assignments - kept. */
  int64_t dropped;
  /** The largest expert_demand. */
  int64_t max_load;
  /** max_load / mean expert_demand: 1 is perfectly balanced; 0 with no assignments. */
  double max_over_mean;
  /** dropped / assignments; 0 with no assignments. */
  double dropped_fraction;
  /** The plan's load-balancing loss (losses[0]). */
  float aux_loss;
  /** The plan's z-loss (losses[1]). */
  float z_loss;
} frugal_route_stats;

/**
 * Load statistics of a routed plan: reads expert_offsets, expert_demand,
 * token_offsets (for T) and losses, which must be host tensors (copy
 * those four small tensors from a device plan first).
 *   plan: not NULL. out: // out, not NULL; struct_size set by the caller.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_router_stats(const frugal_router* router,
                                                              const frugal_route_plan* plan, frugal_route_stats* out);

/**
 * Serialises the router state (the bias; empty for stateless routers).
 *   buffer: capacity bytes, or NULL (with capacity 0) to query the size.
 *   size:   // out, not NULL: the state's size in bytes. When capacity is
 *           too small: FRUGAL_ERR_OUT_OF_RANGE and *size set.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_router_export_state(frugal_router* router, void* buffer,
                                                                     size_t capacity, size_t* size);

/**
 * Restores a state exported by a router with the same options. A
 * truncated, corrupt or mismatched blob is an error naming what is wrong,
 * and leaves the current state as it was.
 *   data: not NULL unless size is 0.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_router_import_state(frugal_router* router, const void* data,
                                                                     size_t size);

/** Destroys a router; may unload its plugin if nothing else uses it. NULL allowed. */
FRUGAL_API void frugal_router_destroy(frugal_router* router);

#if FRUGAL_LP64
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_shape, tokens) == 8, route_shape_tokens);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_shape, capacity) == 16, route_shape_capacity);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_shape, max_rows) == 24, route_shape_max_rows);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_route_shape) == 32, route_shape_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_stats, tokens) == 8, route_stats_tokens);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_stats, assignments) == 16, route_stats_assignments);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_stats, kept) == 24, route_stats_kept);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_stats, dropped) == 32, route_stats_dropped);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_stats, max_load) == 40, route_stats_max_load);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_stats, max_over_mean) == 48, route_stats_max_over_mean);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_stats, dropped_fraction) == 56, route_stats_dropped_fraction);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_stats, aux_loss) == 64, route_stats_aux_loss);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_stats, z_loss) == 68, route_stats_z_loss);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_route_stats) == 72, route_stats_size);
#endif

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_ROUTER_H_ */
