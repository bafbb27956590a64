/*
 * shim.h — the C side of the Go binding: the only place where Go memory
 * meets a frugal struct that holds pointers.
 *
 * Why it exists: cgo (Go 1.19, no runtime.Pinner) lets Go pass a Go
 * pointer to C only as a direct argument, pointing at memory that holds no
 * Go pointer, and C must not keep it after the call. A frugal_tensor
 * pointing at a Go slice, or a plan holding tensors, would break that rule
 * if Go built it. So Go describes the tensors of one call (dtype, shape)
 * in a C-allocated frame, passes the data pointers as direct arguments,
 * and the functions here wire them into the frame, call libfrugal, and
 * clear them again before returning.
 */
#ifndef FRUGAL_GO_SHIM_H_
#define FRUGAL_GO_SHIM_H_

#include <stdint.h>

#include "frugal/frugal.h"

/* Tensors one frame can describe: the most any call below needs. */
#define FRUGAL_GO_FRAME_TENSORS 18

/*
 * The tensors of one call. C memory (calloc), filled by Go except for the
 * data pointers. tensors[i].shape points at shapes[i] and struct_size and
 * device are set by frugal_go_frame_new.
 */
typedef struct frugal_go_frame {
  frugal_tensor tensors[FRUGAL_GO_FRAME_TENSORS];
  int64_t shapes[FRUGAL_GO_FRAME_TENSORS][FRUGAL_TENSOR_MAX_NDIM];
  /* Nonzero when tensors[i] is given (an empty tensor is given too). */
  int32_t present[FRUGAL_GO_FRAME_TENSORS];
  /* Quantized tensors' meta: the quantizer's layout. */
  int32_t scaling_mode;
  int32_t block_rows;
  int32_t block_cols;
  /* frugal_quantize_args.flags. */
  uint32_t quantize_flags;
  /* Filled by FRUGAL_GO_ROUTE_STATS. */
  frugal_route_stats route_stats;
  /* Filled by FRUGAL_GO_EP_SHAPE (ABI 2.4). */
  frugal_route_ep_shape ep_shape;
  /* frugal_quant_gemm_args.alpha and .flags (FRUGAL_GO_GEMM). */
  float gemm_alpha;
  uint32_t gemm_flags;
} frugal_go_frame;

/* What frugal_go_call does; the frame slots each one reads are in shim.c. */
enum frugal_go_op {
  FRUGAL_GO_QUANTIZE = 1,
  FRUGAL_GO_DEQUANTIZE = 2,
  FRUGAL_GO_ROUTE = 3,
  FRUGAL_GO_PERMUTE = 4,
  FRUGAL_GO_COMBINE = 5,
  FRUGAL_GO_ROUTE_STATS = 6,
  FRUGAL_GO_ROUTER_UPDATE = 7,
  FRUGAL_GO_GEMM = 8,
  /* Expert parallelism (ABI 2.4). */
  FRUGAL_GO_EP_SHAPE = 9,
  FRUGAL_GO_EP_DISPATCH = 10,
  FRUGAL_GO_EP_COMBINE = 11
};

/* A zeroed frame with its shape pointers wired; NULL when out of memory. */
frugal_go_frame* frugal_go_frame_new(void);
void frugal_go_frame_free(frugal_go_frame* frame);

/*
 * Runs `op` on `handle` (a frugal_quantizer* or frugal_router*) with the
 * frame's tensors, slot i's data being p[i]. The pointers are written into
 * the frame for the call only and cleared before returning.
 */
frugal_error* frugal_go_call(int32_t op, void* handle, frugal_go_frame* frame, void* p0, void* p1, void* p2, void* p3,
                             void* p4, void* p5, void* p6, void* p7, void* p8, void* p9, void* p10, void* p11,
                             void* p12, void* p13, void* p14, void* p15, void* p16, void* p17);

/* frugal_ckpt_save with the metadata bytes as a direct argument (args built here). */
frugal_error* frugal_go_ckpt_save(frugal_ckpt_engine* engine, int32_t kind, uint32_t flags, uint64_t step,
                                  const void* metadata, size_t metadata_size, frugal_ckpt_save_result* result);

/*
 * frugal_ckpt_register_slice with the slice's arrays as direct arguments
 * (ndim int64 values each; offsets NULL for zeros): the frugal_ckpt_slice
 * is built on this function's stack, and the core copies it and both
 * arrays during the call.
 */
frugal_error* frugal_go_ckpt_register_slice(frugal_ckpt_engine* engine, const char* name, const frugal_tensor* view,
                                            int32_t ndim, const int64_t* global_shape, const int64_t* offsets,
                                            int32_t replicated, uint32_t kinds);

/* frugal_ckpt_list reporting each checkpoint to the Go callback of cgo handle `handle`. */
frugal_error* frugal_go_ckpt_list(frugal_ckpt_engine* engine, uint32_t flags, uintptr_t handle);

/* frugal_store_list reporting each key to the Go callback of cgo handle `handle`. */
frugal_error* frugal_go_store_list(frugal_store* store, const char* prefix, uintptr_t handle);

/* frugal_ckpt_emergency_save with the metadata bytes as a direct argument (args built here). */
frugal_error* frugal_go_ckpt_emergency_save(frugal_ckpt_engine* engine, uint64_t step, const void* metadata,
                                            size_t metadata_size, double deadline_seconds,
                                            frugal_ckpt_emergency_result* result);

/*
 * frugal_pack_plan_gather with every array a direct argument; the args
 * struct is built on this function's stack and never outlives the call.
 */
frugal_error* frugal_go_pack_gather(const frugal_pack_plan* plan, size_t pack, const int64_t* tokens,
                                    const int64_t* sequence_offsets, size_t sequence_count, const int64_t* labels,
                                    int64_t* out_tokens, int64_t* out_labels, size_t out_length, int64_t pad_token,
                                    int64_t ignore_index, int32_t mask_first_label);

/*
 * frugal_context_set_log_callback delivering each message to the Go
 * callback of cgo handle `handle`; enabled 0 silences logging (NULL sink).
 */
/*
 * frugal_ckpt_register_state with trampolines into Go (callbacks.go);
 * user_data is the cgo handle of the Go state.
 */
frugal_error* frugal_go_ckpt_register_state(frugal_ckpt_engine* engine, const char* name, uintptr_t handle,
                                            uint32_t kinds);

frugal_error* frugal_go_set_log_callback(frugal_context* context, int32_t enabled, uintptr_t handle, int32_t min_level);

/*
 * frugal_managed_tensor_wrap over C memory `data` (never Go memory: the
 * managed tensor keeps it) of dtype and shape (copied), compact row-major
 * on the CPU. With has_release, the Go release function of cgo handle
 * `handle` runs exactly once when the managed tensor or its DLPack export
 * is destroyed.
 */
frugal_error* frugal_go_managed_wrap(int32_t dtype, int32_t ndim, const int64_t* shape, void* data, int32_t has_release,
                                     uintptr_t handle, frugal_managed_tensor** out);

/*
 * One collective of frugal/comm.h on `comm`: op is a frugal_comm_op_values
 * value other than FRUGAL_COMM_BARRIER (which takes no tensor). Slot 0 of
 * the frame is send (absent for BROADCAST), slot 1 recv (the buffer for
 * BROADCAST); their data are send_data and recv_data. arg is the reduce_op
 * (ALL_REDUCE, REDUCE_SCATTER) or the root (BROADCAST). The count and
 * displacement arrays are Go memory (no pointers in it) passed for this
 * call only; NULL where the op takes none or for packed parts.
 */
frugal_error* frugal_go_comm_call(int32_t op, frugal_comm* comm, frugal_go_frame* frame, void* send_data,
                                  void* recv_data, int32_t arg, const size_t* send_counts, const size_t* send_displs,
                                  const size_t* recv_counts, const size_t* recv_displs);

/* Calls a DLPack capsule's deleter (if any): releases the capsule. */
void frugal_go_dlpack_delete(frugal_dlpack_managed_tensor* tensor);
void frugal_go_dlpack_delete_versioned(frugal_dlpack_managed_tensor_versioned* tensor);

#endif /* FRUGAL_GO_SHIM_H_ */
