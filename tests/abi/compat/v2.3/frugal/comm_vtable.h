/*
 * frugal/comm_vtable.h — the vtable of FRUGAL_KIND_COMM strategies:
 * collective-communication backends (MPI, NCCL, one process), implemented
 * by plugins and called by the core. Added in ABI 2.1.
 *
 * A comm instance is one rank's end of a communicator: a group of `size`
 * processes, this one numbered `rank`. Every rank of the group makes the
 * same collective calls in the same order; a call returns on a rank once
 * that rank's part is done (its receive buffer holds the result, or for a
 * device backend the work is enqueued on the call's stream).
 *
 * The split of work:
 *   - the core checks every call before a backend sees it: the op, the
 *     dtype for the reduction, the counts and displacements against the
 *     buffers, the root, and that the buffers live where the backend said
 *     (frugal_comm_info.device_type). It hands the backend one
 *     frugal_comm_call, with the displacements of the "v" collectives
 *     always filled in and timeout_ms always > 0;
 *   - the backend moves the bytes, reduces, and never blocks past the
 *     call's deadline: when a peer dies, stops calling, or the call does
 *     not finish in time, it returns FRUGAL_ERR_DEADLINE_EXCEEDED (or
 *     FRUGAL_ERR_IO when the transport reports the failure) naming the
 *     operation, its rank and, where it can tell, the peer. After such a
 *     failure the core refuses further calls on the instance (the group
 *     can no longer agree on what has been done) and only destroys it.
 *
 * Declares no function; safe for plugins.
 */
#ifndef FRUGAL_COMM_VTABLE_H_
#define FRUGAL_COMM_VTABLE_H_

#include "frugal/plugin.h"
#include "frugal/tensor.h"
#include "frugal/types.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Operations                                                               */
/* ======================================================================== */

/**
 * frugal_comm_call.op: the collectives. Counts are in elements of the
 * call's dtype; "block" means `count` elements.
 */
enum frugal_comm_op_values {
  /** recv[count] = reduce over ranks of send[count]; send may equal recv (in place). */
  FRUGAL_COMM_ALL_REDUCE = 1,
  /** recv[count] on every rank = recv[count] of rank `root`; send is NULL. */
  FRUGAL_COMM_BROADCAST = 2,
  /** recv[size * count]: block r is rank r's send[count]. */
  FRUGAL_COMM_ALL_GATHER = 3,
  /** recv: rank r's send (recv_counts[r] elements) at recv_displs[r]; count == recv_counts[rank]. */
  FRUGAL_COMM_ALL_GATHER_V = 4,
  /** recv[count] on rank r = reduce over ranks of block r of send[size * count]. */
  FRUGAL_COMM_REDUCE_SCATTER = 5,
  /** send[size * count], recv[size * count]: send block j goes to rank j, recv block i comes from rank i. */
  FRUGAL_COMM_ALL_TO_ALL = 6,
  /**
   * send_counts[j] elements from send + send_displs[j] go to rank j;
   * recv_counts[i] elements from rank i land at recv + recv_displs[i].
   * count is 0. Zero counts are allowed.
   */
  FRUGAL_COMM_ALL_TO_ALL_V = 7,
  /** Returns on a rank once every rank has entered it. No buffers; count 0. */
  FRUGAL_COMM_BARRIER = 8
};

/** frugal_comm_call.reduce_op: element-wise reductions. */
enum frugal_reduce_op_values {
  FRUGAL_REDUCE_SUM = 1, /**< Sum (floating point: in the backend's order; integers wrap as two's complement). */
  FRUGAL_REDUCE_MAX = 2, /**< Maximum (a NaN input gives an unspecified result). */
  FRUGAL_REDUCE_MIN = 3  /**< Minimum (a NaN input gives an unspecified result). */
};

/** frugal_comm_split / split: the color of a rank that joins no sub-group (as MPI_UNDEFINED). */
#define FRUGAL_COMM_COLOR_NONE (-1)

/** Default deadline of one collective, in milliseconds (frugal_comm_set_timeout changes it). */
#define FRUGAL_COMM_DEFAULT_TIMEOUT_MS 300000

/* ======================================================================== */
/* Instance description                                                     */
/* ======================================================================== */

/** What a comm instance is, filled by the backend's info slot. */
typedef struct frugal_comm_info {
  /** sizeof(frugal_comm_info) as built by the caller; the callee fills up to it. */
  size_t struct_size;
  /** This rank, in [0, size). */
  int32_t rank;
  /** Ranks in the group, >= 1. */
  int32_t size;
  /**
   * Where buffers must live (frugal_device_type_values): FRUGAL_DEVICE_CPU
   * for a host backend (which also takes FRUGAL_DEVICE_CUDA_PINNED memory),
   * FRUGAL_DEVICE_CUDA for a device backend.
   */
  int32_t device_type;
  /** CUDA ordinal of a device backend; 0 otherwise. */
  int32_t device_id;
} frugal_comm_info;

/* ======================================================================== */
/* Calls                                                                    */
/* ======================================================================== */

/**
 * One collective, as the core hands it to a backend (and as a plugin hands
 * it to frugal_host_api.comm_run). Valid during the call only. Buffers are
 * compact arrays of `dtype` elements on the instance's device.
 */
typedef struct frugal_comm_call {
  /** sizeof(frugal_comm_call) as built by the caller. */
  size_t struct_size;
  /** One of frugal_comm_op_values. */
  int32_t op;
  /** frugal_dtype_values of both buffers; 0 for BARRIER. */
  int32_t dtype;
  /** frugal_reduce_op_values for ALL_REDUCE and REDUCE_SCATTER; 0 otherwise. */
  int32_t reduce_op;
  /** BROADCAST: the rank whose buffer is sent, in [0, size); 0 otherwise. */
  int32_t root;
  /** Input elements; NULL for BROADCAST and BARRIER, and allowed when no element is sent. */
  const void* send;
  /** Output elements; NULL for BARRIER, and allowed when no element is received. */
  void* recv;
  /** Elements per block, as each op says (0 for ALL_TO_ALL_V and BARRIER). */
  size_t count;
  /** ALL_TO_ALL_V: `size` counts; NULL otherwise. */
  const size_t* send_counts;
  /** ALL_TO_ALL_V: `size` element offsets into send; NULL otherwise. */
  const size_t* send_displs;
  /** ALL_GATHER_V, ALL_TO_ALL_V: `size` counts; NULL otherwise. */
  const size_t* recv_counts;
  /** ALL_GATHER_V, ALL_TO_ALL_V: `size` element offsets into recv; NULL otherwise. */
  const size_t* recv_displs;
  /**
   * Device backends: the stream to enqueue on (a cudaStream_t), NULL for
   * the backend's own. Host backends ignore it.
   */
  void* stream;
  /** The call's deadline in milliseconds from its start, > 0. */
  int64_t timeout_ms;
} frugal_comm_call;

/** Bytes of frugal_comm_call a receiver requires (through `timeout_ms`). */
#define FRUGAL_COMM_CALL_MIN_SIZE (offsetof(frugal_comm_call, timeout_ms) + sizeof(int64_t))

/* ======================================================================== */
/* Vtable                                                                   */
/* ======================================================================== */

/**
 * Table of a comm strategy. Owned by the plugin (static), valid until
 * unload. Every v2.1 slot is required. Errors are made with the host
 * table's error_create. No slot may throw. An instance is used by one
 * thread at a time (the core serialises calls on it); different instances
 * may be used concurrently when the backend's library allows it.
 */
typedef struct frugal_comm_vtable {
  /** sizeof(frugal_comm_vtable) as built by the plugin. */
  size_t struct_size;

  /**
   * Joins (or wraps) a communicator. Collective for backends with peers:
   * every rank of the group calls it.
   *   host:    the plugin's host table.
   *   options: backend configuration, read during the call only (NULL
   *            means none given). Unknown or ill-typed options must be
   *            reported as errors. A frugal_comm option (option_get_comm)
   *            stays valid until this instance is destroyed.
   *   comm:    // out, opaque plugin-owned handle, released by destroy.
   */
  frugal_error* (*create)(const frugal_host_api* host, const frugal_options* options, void** comm);

  /**
   * Leaves the communicator. Local: it must not wait for peers (a peer may
   * be dead). The core never passes NULL.
   */
  void (*destroy)(void* comm);

  /**
   * Describes the instance; the core calls it once after create and
   * split and keeps the answer. Must succeed for a live instance.
   *   out: // out, struct_size set by the core.
   */
  frugal_error* (*info)(void* comm, frugal_comm_info* out);

  /**
   * Splits the group, as MPI_Comm_split: collective over the instance's
   * group; ranks passing the same color form one sub-group, ordered by key
   * then by rank. A rank passing FRUGAL_COMM_COLOR_NONE joins none and
   * gets NULL.
   *   color: >= 0 or FRUGAL_COMM_COLOR_NONE.
   *   sub:   // out, a new instance released by destroy, or NULL.
   * Takes the same deadline as a collective (timeout_ms, > 0).
   */
  frugal_error* (*split)(void* comm, int32_t color, int32_t key, int64_t timeout_ms, void** sub);

  /** Runs one collective (see frugal_comm_call and frugal_comm_op_values). */
  frugal_error* (*run)(void* comm, const frugal_comm_call* call);
} frugal_comm_vtable;

/** Bytes of frugal_comm_vtable a core requires (through `run`). */
#define FRUGAL_COMM_VTABLE_MIN_SIZE (offsetof(frugal_comm_vtable, run) + sizeof(void*))

#if FRUGAL_LP64
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_comm_info, rank) == 8, comm_info_rank);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_comm_info, size) == 12, comm_info_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_comm_info, device_type) == 16, comm_info_device_type);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_comm_info, device_id) == 20, comm_info_device_id);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_comm_info) == 24, comm_info_size_total);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_comm_call, op) == 8, comm_call_op);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_comm_call, dtype) == 12, comm_call_dtype);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_comm_call, reduce_op) == 16, comm_call_reduce_op);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_comm_call, root) == 20, comm_call_root);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_comm_call, send) == 24, comm_call_send);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_comm_call, recv) == 32, comm_call_recv);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_comm_call, count) == 40, comm_call_count);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_comm_call, send_counts) == 48, comm_call_send_counts);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_comm_call, send_displs) == 56, comm_call_send_displs);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_comm_call, recv_counts) == 64, comm_call_recv_counts);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_comm_call, recv_displs) == 72, comm_call_recv_displs);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_comm_call, stream) == 80, comm_call_stream);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_comm_call, timeout_ms) == 88, comm_call_timeout_ms);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_comm_call) == 96, comm_call_size);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_comm_vtable, create) == 8, comm_create);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_comm_vtable, destroy) == 16, comm_destroy);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_comm_vtable, info) == 24, comm_info);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_comm_vtable, split) == 32, comm_split);
FRUGAL_LAYOUT_ASSERT(offsetof(frugal_comm_vtable, run) == 40, comm_run);
FRUGAL_LAYOUT_ASSERT(sizeof(frugal_comm_vtable) == 48, comm_vtable_size);
#endif

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_COMM_VTABLE_H_ */
