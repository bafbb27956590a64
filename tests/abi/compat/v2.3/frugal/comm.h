/*
 * frugal/comm.h — communicators and collectives (host side). Added in ABI 2.1.
 *
 * A frugal_comm is this process's end of a group of ranks, created from a
 * FRUGAL_KIND_COMM strategy: "mpi" (comm_mpi: MPI processes, host
 * memory), "nccl" (comm_nccl: one GPU per rank, device memory), "local"
 * (comm_local: a group of one, every collective a copy, so a host codes
 * one path). frugal builds no cluster layer of its own: ranks are started
 * by mpirun (or the host's launcher) and bootstrapped by the backend.
 *
 * Collective rules (as MPI's and NCCL's):
 *   - every rank of the group makes the same calls, in the same order, with
 *     matching dtypes and counts; a mismatch is undefined unless the
 *     backend checks it (comm_mpi's "check_calls" option does);
 *   - tensors are compact (strides NULL or row-major), of one dtype, on
 *     the comm's device (frugal_comm_device_type), quantization slot
 *     NULL or FRUGAL_SCALING_NONE; send and recv do not overlap unless a
 *     function says it may run in place;
 *   - a call never hangs: it fails with FRUGAL_ERR_DEADLINE_EXCEEDED once
 *     its deadline passes (frugal_comm_set_timeout, default
 *     FRUGAL_COMM_DEFAULT_TIMEOUT_MS), or FRUGAL_ERR_IO when the transport
 *     reports a dead peer, naming the operation, the rank and where known
 *     the peer. The comm is then broken: every later call fails with
 *     FRUGAL_ERR_FAILED_PRECONDITION quoting the first failure; destroy it
 *     (and, for MPI, let the process exit without waiting on its peers).
 *
 * Thread safety: one thread at a time per comm (calls are serialised
 * inside; collective order across ranks is the caller's to keep).
 * Different comms may be used from different threads.
 *
 * Plugins reach a comm handed to them as an option (frugal_options_set_comm)
 * through frugal_host_api.comm_info and comm_run; they never call these
 * functions.
 */
#ifndef FRUGAL_COMM_H_
#define FRUGAL_COMM_H_

#include "frugal/comm_vtable.h"
#include "frugal/tensor.h"
#include "frugal/types.h"

FRUGAL_EXTERN_C_BEGIN

/* ======================================================================== */
/* Communicators                                                            */
/* ======================================================================== */

/**
 * Creates a communicator: collective over the ranks of the group the
 * backend joins (for "mpi": MPI_COMM_WORLD, or the communicator given as
 * option "fortran_handle").
 *   context: a context with the providing plugin loaded; not NULL.
 *   name:    strategy name ("mpi", "nccl", "local" or "plugin/name"); not NULL.
 *   options: backend configuration, read during the call only; NULL: none.
 *   out:     // out, owned by the caller; release with frugal_comm_destroy.
 * Backend errors are prefixed with "comm 'name': ".
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_comm_create(frugal_context* context, const char* name,
                                                             const frugal_options* options, frugal_comm** out);

/**
 * Releases the caller's handle. Local, never waits on peers. Objects
 * created with the comm as an option keep it alive until they are
 * destroyed. NULL allowed.
 */
FRUGAL_API void frugal_comm_destroy(frugal_comm* comm);

/** This process's rank in the group, in [0, size). comm not NULL. */
FRUGAL_API int32_t frugal_comm_rank(const frugal_comm* comm);

/** Ranks in the group, >= 1. comm not NULL. */
FRUGAL_API int32_t frugal_comm_size(const frugal_comm* comm);

/** frugal_device_type_values of the memory the comm's collectives take. comm not NULL. */
FRUGAL_API int32_t frugal_comm_device_type(const frugal_comm* comm);

/**
 * Splits the group into sub-groups (data-parallel, expert-parallel), as
 * MPI_Comm_split: collective; ranks passing the same color (>= 0) form a
 * sub-group, ranked by key, ties by their rank here. A rank passing
 * FRUGAL_COMM_COLOR_NONE joins none and gets *out == NULL.
 *   out: // out, owned by the caller (frugal_comm_destroy), or NULL.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_comm_split(frugal_comm* comm, int32_t color, int32_t key,
                                                            frugal_comm** out);

/**
 * Sets the deadline of each later call on this comm, in milliseconds
 * (> 0; FRUGAL_ERR_INVALID_ARGUMENT otherwise). Local. Sub-groups made by
 * split start with their parent's deadline.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_comm_set_timeout(frugal_comm* comm, int64_t timeout_ms);

/**
 * Device backends: the stream (a cudaStream_t) later calls are enqueued
 * on; NULL (the default) means the backend's own stream. Host backends
 * ignore it. Local; the stream must outlive the calls made on it.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_comm_set_stream(frugal_comm* comm, void* stream);

/* ======================================================================== */
/* Collectives                                                              */
/* ======================================================================== */

/**
 * recv = the element-wise reduction of every rank's send.
 *   send, recv: same dtype and element count; recv may be send (the same
 *               view or the same memory: in place).
 *   reduce_op:  frugal_reduce_op_values. SUM, MAX and MIN take FLOAT32,
 *               FLOAT64, FLOAT16, BFLOAT16, INT32 and INT64; MAX and MIN
 *               also UINT8. Anything else is FRUGAL_ERR_UNSUPPORTED.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_comm_all_reduce(frugal_comm* comm, const frugal_tensor* send,
                                                                 const frugal_tensor* recv, int32_t reduce_op);

/**
 * Every rank's buffer = rank root's buffer. Any dtype; the element count
 * must agree on every rank.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_comm_broadcast(frugal_comm* comm, const frugal_tensor* buffer,
                                                                int32_t root);

/**
 * recv = every rank's send, concatenated in rank order. Any dtype.
 *   recv: size x send's element count.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_comm_all_gather(frugal_comm* comm, const frugal_tensor* send,
                                                                 const frugal_tensor* recv);

/**
 * All-gather of uneven parts: rank r's send (recv_counts[r] elements) lands
 * at element recv_displs[r] of recv.
 *   recv_counts: size entries; entry `rank` equals send's element count.
 *   recv_displs: size entries, or NULL for parts packed in rank order.
 *                Every part must lie inside recv; parts must not overlap.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_comm_all_gather_v(frugal_comm* comm, const frugal_tensor* send,
                                                                   const frugal_tensor* recv, const size_t* recv_counts,
                                                                   const size_t* recv_displs);

/**
 * recv on rank r = the reduction over ranks of block r of send.
 *   send: size x recv's element count. reduce_op and dtypes as all_reduce.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_comm_reduce_scatter(frugal_comm* comm, const frugal_tensor* send,
                                                                     const frugal_tensor* recv, int32_t reduce_op);

/**
 * Equal blocks to every rank: block j of send goes to rank j, block i of
 * recv comes from rank i. Any dtype.
 *   send, recv: the same element count, a multiple of size.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_comm_all_to_all(frugal_comm* comm, const frugal_tensor* send,
                                                                 const frugal_tensor* recv);

/**
 * Uneven all-to-all (expert-parallel dispatch): send_counts[j] elements at
 * send_displs[j] go to rank j; recv_counts[i] elements from rank i land at
 * recv_displs[i]. Counts may be zero; what rank i sends to rank j must
 * equal what rank j expects from rank i.
 *   *_counts: size entries each, not NULL.
 *   *_displs: size entries, or NULL for parts packed in rank order. Every
 *             part lies inside its tensor; received parts do not overlap.
 */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_comm_all_to_all_v(frugal_comm* comm, const frugal_tensor* send,
                                                                   const size_t* send_counts, const size_t* send_displs,
                                                                   const frugal_tensor* recv, const size_t* recv_counts,
                                                                   const size_t* recv_displs);

/** Returns once every rank of the group has entered the barrier. */
FRUGAL_NODISCARD FRUGAL_API frugal_error* frugal_comm_barrier(frugal_comm* comm);

FRUGAL_EXTERN_C_END

#endif /* FRUGAL_COMM_H_ */
