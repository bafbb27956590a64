/*
 * frugal/router_vtable.h — the vtable of FRUGAL_KIND_ROUTER strategies:
 * mixture-of-experts routers, implemented by plugins and called by the core.
 *
 * A router instance turns router logits [T, E] (T tokens, E experts) into a
 * dispatch plan, moves activation rows into the plan's expert-major order
 * (permute) and back (combine), and keeps the router's state (the
 * aux-loss-free selection bias of DeepSeek-V3). The split of work:
 *   - the core fixes every plan shape from the instance's layout and T,
 *     validates every tensor of the host's arguments (frugal/router.h)
 *     before the plugin sees it and hands over its own structs (the
 *     frugal_*_call types below) holding normalised views: plan tensors
 *     are 1-D and compact (shape [n], strides [1]); logits and activations
 *     are 2-D [rows, cols] with strides never NULL and strides[1] == 1.
 *     byte_offset is folded into data. After a route on host tensors the core checks the plan the
 *     plugin wrote (see frugal/router.h);
 *   - the plugin owns the routing math, the plan, the kernels and the state.
 *
 * Terms. A token-choice router gives each token its top_k experts; slot
 * s = t * top_k + j names token t's j-th choice. An expert-choice router
 * gives each expert its `capacity` best tokens (no slots). A "row" is one
 * kept (token, expert) assignment in the expert-major activation buffer.
 *
 * Declares no function; safe for plugins.
 */
#ifndef FRUGAL_ROUTER_VTABLE_H_
#define FRUGAL_ROUTER_VTABLE_H_

#include "frugal/plugin.h"
#include "frugal/tensor.h"
#include "frugal/types.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Layout                                                                   */
/* ======================================================================== */

/** frugal_route_layout.choice values. */
enum frugal_router_choice_values {
  /** Each token picks top_k experts. */
  FRUGAL_ROUTER_TOKEN_CHOICE = 0,
  /** Each expert picks `capacity` tokens (Zhou et al. 2022). */
  FRUGAL_ROUTER_EXPERT_CHOICE = 1
};

/** frugal_route_layout.drop_policy values: what happens past an expert's capacity. */
enum frugal_router_drop_values {
  /** No capacity: every assignment is kept (token choice), or expert choice. */
  FRUGAL_ROUTER_DROPLESS = 0,
  /** An overfull expert keeps its highest-weight assignments (ties: lower token, then lower slot). */
  FRUGAL_ROUTER_DROP_BY_PROBABILITY = 1,
  /** An overfull expert keeps its first assignments in token order (then slot order). */
  FRUGAL_ROUTER_DROP_BY_POSITION = 2
};

/** frugal_route_layout.flags: the router has a selection bias moved by update(). */
#define FRUGAL_ROUTE_LAYOUT_BIAS ((uint32_t)1 << 0)

/**
 * What an instance produces, fixed at creation. With T tokens the core
 * derives (frugal_router_plan_shape):
 *   token choice, dropless: capacity 0, max_rows T * top_k;
 *   token choice, dropping: capacity C = max(1, ceil(T * top_k *
 *     capacity_factor / E)), max_rows min(T * top_k, E * C);
 *   expert choice: C = min(T, max(1, ceil(T * capacity_factor / E))),
 *     max_rows E * C.
 */
typedef struct frugal_route_layout {
  /** sizeof(frugal_route_layout) as built by the caller; the callee fills up to it. */
  size_t struct_size;
  /** One of frugal_router_choice_values. */
  int32_t choice;
  /** E, in [1, 2^20]. */
  int32_t experts;
  /** Token choice: experts per token, in [1, experts]. Expert choice: 0. */
  int32_t top_k;
  /** One of frugal_router_drop_values; FRUGAL_ROUTER_DROPLESS for expert choice. */
  int32_t drop_policy;
  /** > 0 and finite when dropping or expert choice; 0 when dropless. */
  double capacity_factor;
  /** FRUGAL_ROUTE_LAYOUT_* bits. */
  uint32_t flags;
  /** Padding; 0. */
  uint32_t reserved;
} frugal_route_layout;

/* ======================================================================== */
/* The dispatch plan                                                        */
/* ======================================================================== */

/**
 * The tensors a route call writes, allocated by the host with the shapes of
 * frugal_router_plan_shape (R = max_rows), on the logits' device. One type,
 * read two ways:
 *   - from the host (in frugal_route_args, frugal_route_move_args): every
 *     tensor compact, of any shape with the stated element count (a [T, k]
 *     member may be [T * k]), byte_offset honoured;
 *   - by the plugin (in frugal_route_call, frugal_route_move_call): the
 *     core's checked copy, every member 1-D [n] with strides [1] and
 *     byte_offset folded into data, n the stated element count.
 * Offsets and row indices are int64: rows x hidden passes 2^31 in real
 * layers. Rows [N, R), past the N kept rows, hold row_token = token_rows =
 * -1 and row_weight = 0, so kernels can run over R rows without reading N.
 */
typedef struct frugal_route_plan {
  /** sizeof(frugal_route_plan) as built by the caller. */
  size_t struct_size;
  /** [T, top_k] INT32: token choice's experts per token, best first. Unused (may be NULL) for expert choice. */
  const frugal_tensor* expert_ids;
  /** [T, top_k] FLOAT32: their gate weights. Unused (may be NULL) for expert choice. */
  const frugal_tensor* weights;
  /** [T, top_k] UINT8: 1 where capacity dropped the assignment. Unused (may be NULL) for expert choice. */
  const frugal_tensor* dropped;
  /** [T, top_k] INT64: the row of each slot, -1 where dropped. Unused (may be NULL) for expert choice. */
  const frugal_tensor* slot_row;
  /** [E + 1] INT64: expert e's rows are [expert_offsets[e], expert_offsets[e + 1]); [0] = 0, [E] = N. */
  const frugal_tensor* expert_offsets;
  /** [E] INT64: assignments each expert was asked for, before capacity drops (f_i of the aux loss). */
  const frugal_tensor* expert_demand;
  /** [R] INT64: the token of each row; expert-major, increasing tokens inside an expert. */
  const frugal_tensor* row_token;
  /** [R] FLOAT32: the gate weight of each row. */
  const frugal_tensor* row_weight;
  /** [T + 1] INT64: token t's rows are token_rows[token_offsets[t] .. token_offsets[t + 1]). */
  const frugal_tensor* token_offsets;
  /** [R] INT64: row indices grouped by token (slot order, or expert order for expert choice). */
  const frugal_tensor* token_rows;
  /** [E] FLOAT32: P_i, the mean over tokens of expert i's router probability. */
  const frugal_tensor* mean_prob;
  /** [2] FLOAT32: the load-balancing (aux) loss and the z-loss, coefficients applied. */
  const frugal_tensor* losses;
} frugal_route_plan;

/* ======================================================================== */
/* Calls: what the core hands the plugin                                    */
/* ======================================================================== */

/*
 * Hosts pass frugal_route_args and frugal_route_move_args (frugal/router.h:
 * N-D logits and activations, padded rows, plans of any compact shape).
 * The core checks them and passes the plugin the structs below instead:
 * logits and activations 2-D [rows, cols] with strides never NULL and
 * strides[1] == 1, plan members 1-D and compact, byte_offset folded into
 * data. The two share field names and order, never the type.
 */

/**
 * One route call as the plugin receives it. Tensors are core-normalised
 * views, all on one device. Built by the core, valid during the call only
 * (CUDA: until the work queued on `stream` completes).
 */
typedef struct frugal_route_call {
  /** sizeof(frugal_route_call) as built by the core. */
  size_t struct_size;
  /** [T, E] FLOAT32, BFLOAT16 or FLOAT16, finite; never NULL. */
  const frugal_tensor* logits;
  /**
   * The plan to write; never NULL. Every member is a checked view, except
   * that for expert choice the core passes the token-choice members as NULL.
   */
  const frugal_route_plan* plan;
  /** cudaStream_t for CUDA tensors (NULL: the default stream); NULL for host tensors. */
  void* stream;
} frugal_route_call;

/**
 * Moves activation rows between token order and the plan's expert-major
 * order: permute gathers output[r] = input[row_token[r]] (input [T, H],
 * output [R, H]); combine scatter-adds output[t] = sum over token t's rows
 * r, in token_rows order, of row_weight[r] * input[r] with fp32
 * accumulation (input [R, H], output [T, H]; a token without rows gets 0).
 * Permute leaves output rows [N, R) untouched; combine never reads them.
 */
typedef struct frugal_route_move_call {
  /** sizeof(frugal_route_move_call) as built by the core. */
  size_t struct_size;
  /** A plan written by route on this instance (checked views); never NULL. */
  const frugal_route_plan* plan;
  /** FLOAT32 or BFLOAT16, 2-D; never NULL. */
  const frugal_tensor* input;
  /** The input's dtype, 2-D; never NULL; does not overlap input (the core checks). */
  const frugal_tensor* output;
  /** As in frugal_route_call. */
  void* stream;
} frugal_route_move_call;

/**
 * One bias update (aux-loss-free balancing) as the plugin receives it, once
 * per optimizer step: b_i += gamma * sign(mean load - load_i). The host
 * passes the loads to frugal_router_update (summed over ranks with expert
 * parallelism, so every rank's bias stays identical).
 */
typedef struct frugal_router_update_call {
  /** sizeof(frugal_router_update_call) as built by the core. */
  size_t struct_size;
  /** [E] INT64, 1-D compact, host memory, each >= 0 (checked): assignments per expert before drops. */
  const frugal_tensor* expert_load;
} frugal_router_update_call;

/* ======================================================================== */
/* Vtable                                                                   */
/* ======================================================================== */

/**
 * Table of a router strategy. Owned by the plugin (static), valid until
 * unload. Every slot is required. Errors are made with the host table's
 * error_create. No slot may throw. Thread safety of the call slots is
 * declared by the FRUGAL_STRATEGY_* flags; create may always run
 * concurrently.
 */
typedef struct frugal_router_vtable {
  /** sizeof(frugal_router_vtable) as built by the plugin. */
  size_t struct_size;

  /**
   * Creates an instance.
   *   host:     never NULL.
   *   options:  the strategy's options (experts, k, ...); may be NULL; read
   *             during the call only. Unknown or ill-typed options must be
   *             reported as errors.
   *   instance: // out, never NULL; non-NULL on success.
   */
  frugal_error* (*create)(const frugal_host_api* host, const frugal_options* options, void** instance);

  /** Destroys an instance, exactly once, never concurrently with another slot on it. */
  void (*destroy)(void* instance);

  /**
   * Describes the instance. Called once, right after create.
   *   out: // out, never NULL; the core sets struct_size, the plugin fills
   *        the fields up to it.
   */
  frugal_error* (*layout)(void* instance, frugal_route_layout* out);

  /**
   * Routes call->logits into call->plan, every tensor of which the core
   * has checked against the layout's shapes. Reads the bias state, never
   * changes it. Must reject a device it was not built for with
   * FRUGAL_ERR_UNSUPPORTED naming it.
   */
  frugal_error* (*route)(void* instance, const frugal_route_call* call);

  /** Gathers rows into expert-major order (frugal_route_move_call). */
  frugal_error* (*permute)(void* instance, const frugal_route_move_call* call);

  /** Weighted scatter-add back to token order (frugal_route_move_call). */
  frugal_error* (*combine)(void* instance, const frugal_route_move_call* call);

  /**
   * Moves the selection bias (routers with FRUGAL_ROUTE_LAYOUT_BIAS);
   * others accept the call and change nothing.
   */
  frugal_error* (*update)(void* instance, const frugal_router_update_call* call);

  /**
   * Serialises the router state (the bias) for a checkpoint.
   *   buffer:   capacity bytes, or NULL to query the size.
   *   size:     // out, never NULL; the blob's size. When capacity is too
   *             small, set it and return FRUGAL_ERR_OUT_OF_RANGE.
   * A stateless router writes 0 bytes. The blob must be versioned and
   * self-checking: import_state of a corrupt blob is an error.
   */
  frugal_error* (*export_state)(void* instance, void* buffer, size_t capacity, size_t* size);

  /**
   * Restores export_state's blob, from an instance with the same options.
   * On error the instance's state is unchanged.
   */
  frugal_error* (*import_state)(void* instance, const void* data, size_t size);
} frugal_router_vtable;

/** Bytes of frugal_router_vtable a core requires (through `import_state`). */
#define FRUGAL_ROUTER_VTABLE_MIN_SIZE (offsetof(frugal_router_vtable, import_state) + sizeof(void*))

#if FRUGAL_LP64
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_layout, choice) == 8, router_layout_choice);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_layout, experts) == 12, router_layout_experts);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_layout, top_k) == 16, router_layout_top_k);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_layout, drop_policy) == 20, router_layout_drop_policy);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_layout, capacity_factor) == 24, router_layout_capacity_factor);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_layout, flags) == 32, router_layout_flags);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_route_layout) == 40, router_layout_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_plan, expert_ids) == 8, route_plan_expert_ids);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_plan, weights) == 16, route_plan_weights);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_plan, dropped) == 24, route_plan_dropped);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_plan, slot_row) == 32, route_plan_slot_row);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_plan, expert_offsets) == 40, route_plan_expert_offsets);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_plan, expert_demand) == 48, route_plan_expert_demand);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_plan, row_token) == 56, route_plan_row_token);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_plan, row_weight) == 64, route_plan_row_weight);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_plan, token_offsets) == 72, route_plan_token_offsets);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_plan, token_rows) == 80, route_plan_token_rows);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_plan, mean_prob) == 88, route_plan_mean_prob);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_plan, losses) == 96, route_plan_losses);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_route_plan) == 104, route_plan_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_call, logits) == 8, route_call_logits);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_call, plan) == 16, route_call_plan);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_call, stream) == 24, route_call_stream);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_route_call) == 32, route_call_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_move_call, plan) == 8, route_call_move_plan);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_move_call, input) == 16, route_call_move_input);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_move_call, output) == 24, route_call_move_output);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_route_move_call, stream) == 32, route_call_move_stream);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_route_move_call) == 40, route_call_move_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_router_update_call, expert_load) == 8, router_update_load);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_router_update_call) == 16, router_update_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_router_vtable, create) == 8, router_create);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_router_vtable, destroy) == 16, router_destroy);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_router_vtable, layout) == 24, router_layout);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_router_vtable, route) == 32, router_route);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_router_vtable, permute) == 40, router_permute);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_router_vtable, combine) == 48, router_combine);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_router_vtable, update) == 56, router_update);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_router_vtable, export_state) == 64, router_export_state);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_router_vtable, import_state) == 72, router_import_state);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_router_vtable) == 80, router_vtable_size);
#endif

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_ROUTER_VTABLE_H_ */
