/*
 * shim.c — see shim.h: wires Go data pointers into C-allocated tensor
 * frames for one libfrugal call, and trampolines for list callbacks.
 */
#include "shim.h"

#include <stdlib.h>
#include <string.h>

/* Implemented in Go (callbacks.go), reached through a cgo handle. */
extern int32_t frugalGoCkptListVisit(uintptr_t handle, frugal_ckpt_info* info);
extern int32_t frugalGoStoreListVisit(uintptr_t handle, char* key, uint64_t size);
extern void frugalGoLog(uintptr_t handle, int32_t level, char* source, char* message);
extern void frugalGoRelease(uintptr_t handle);
extern frugal_error* frugalGoStateExport(uintptr_t handle, void* buffer, size_t capacity, size_t* size);
extern frugal_error* frugalGoStateImport(uintptr_t handle, void* data, size_t size);

/*
 * Router slots: 0 logits (route), expert load (update) or expert_offsets
 * (ep_dispatch); 1..14 the plan in frugal_route_plan order (ep_tokens and
 * ep_rows last, ABI 2.4); 15 input, 16 output; 17 row_token (ep_dispatch).
 */
enum { kPlanFirst = 1, kPlanCount = 14, kRouterInput = 15, kRouterOutput = 16, kRouterRowToken = 17 };

frugal_go_frame* frugal_go_frame_new(void) {
  frugal_go_frame* frame = (frugal_go_frame*)calloc(1, sizeof *frame);
  if (frame == NULL) return NULL;
  for (int i = 0; i < FRUGAL_GO_FRAME_TENSORS; ++i) {
    frame->tensors[i].struct_size = sizeof frame->tensors[i];
    frame->tensors[i].device.type = FRUGAL_DEVICE_CPU;
    frame->tensors[i].shape = frame->shapes[i];
  }
  frame->route_stats.struct_size = sizeof frame->route_stats;
  frame->ep_shape.struct_size = sizeof frame->ep_shape;
  return frame;
}

void frugal_go_frame_free(frugal_go_frame* frame) { free(frame); }

/* Tensor in slot i, or NULL when the caller gave none. */
static const frugal_tensor* slot(const frugal_go_frame* frame, int i) {
  return frame->present[i] ? &frame->tensors[i] : NULL;
}

/* A quant meta over slots (scale_inv, scale, amax) with the frame's layout. */
static void fill_meta(frugal_quant_meta* meta, const frugal_go_frame* frame, int scale_inv, int scale, int amax) {
  memset(meta, 0, sizeof *meta);
  meta->struct_size = sizeof *meta;
  meta->scaling_mode = frame->scaling_mode;
  meta->block_rows = frame->block_rows;
  meta->block_cols = frame->block_cols;
  meta->scale_inv = slot(frame, scale_inv);
  meta->scale = slot(frame, scale);
  meta->amax = slot(frame, amax);
}

/* Chains the zero point in slot zp onto meta, when given. */
static void chain_zero_point(frugal_quant_meta* meta, frugal_quant_zero_point_ext* ext, const frugal_go_frame* frame,
                             int zp) {
  if (!frame->present[zp]) return;
  memset(ext, 0, sizeof *ext);
  ext->header.struct_size = sizeof *ext;
  ext->header.type = FRUGAL_EXT_QUANT_ZERO_POINT;
  ext->zero_point = &frame->tensors[zp];
  meta->ext = &ext->header;
}

/*
 * Quantize slots: 0 input, 1-4 output codes, scale_inv, scale, amax,
 * 5-8 the same for output_t, 9 fake, 10 output zero point, 11 output_t
 * zero point.
 */
static frugal_error* quantize(frugal_quantizer* q, frugal_go_frame* frame) {
  frugal_quant_meta meta, meta_t;
  frugal_quant_zero_point_ext zp, zp_t;
  fill_meta(&meta, frame, 2, 3, 4);
  chain_zero_point(&meta, &zp, frame, 10);
  fill_meta(&meta_t, frame, 6, 7, 8);
  chain_zero_point(&meta_t, &zp_t, frame, 11);
  frame->tensors[1].quant = &meta;
  frame->tensors[5].quant = &meta_t;
  frugal_quantize_args args;
  memset(&args, 0, sizeof args);
  args.struct_size = sizeof args;
  args.input = slot(frame, 0);
  args.output = slot(frame, 1);
  args.output_t = slot(frame, 5);
  args.fake = slot(frame, 9);
  args.flags = frame->quantize_flags;
  frugal_error* err = frugal_quantizer_quantize(q, &args);
  /* The metas live on this stack frame: unhook them. */
  frame->tensors[1].quant = NULL;
  frame->tensors[5].quant = NULL;
  return err;
}

/* Dequantize slots: 0 codes, 1 scale_inv, 2 scale, 3 amax, 4 zero point, 5 output. */
static frugal_error* dequantize(frugal_quantizer* q, frugal_go_frame* frame) {
  frugal_quant_meta meta;
  frugal_quant_zero_point_ext zp;
  fill_meta(&meta, frame, 1, 2, 3);
  chain_zero_point(&meta, &zp, frame, 4);
  frame->tensors[0].quant = &meta;
  frugal_dequantize_args args;
  memset(&args, 0, sizeof args);
  args.struct_size = sizeof args;
  args.input = slot(frame, 0);
  args.output = slot(frame, 5);
  frugal_error* err = frugal_quantizer_dequantize(q, &args);
  frame->tensors[0].quant = NULL;
  return err;
}

/* The plan in slots 1..14, in frugal_route_plan field order. */
static void fill_plan(frugal_route_plan* plan, const frugal_go_frame* frame) {
  memset(plan, 0, sizeof *plan);
  plan->struct_size = sizeof *plan;
  plan->expert_ids = slot(frame, kPlanFirst + 0);
  plan->weights = slot(frame, kPlanFirst + 1);
  plan->dropped = slot(frame, kPlanFirst + 2);
  plan->slot_row = slot(frame, kPlanFirst + 3);
  plan->expert_offsets = slot(frame, kPlanFirst + 4);
  plan->expert_demand = slot(frame, kPlanFirst + 5);
  plan->row_token = slot(frame, kPlanFirst + 6);
  plan->row_weight = slot(frame, kPlanFirst + 7);
  plan->token_offsets = slot(frame, kPlanFirst + 8);
  plan->token_rows = slot(frame, kPlanFirst + 9);
  plan->mean_prob = slot(frame, kPlanFirst + 10);
  plan->losses = slot(frame, kPlanFirst + 11);
  plan->ep_tokens = slot(frame, kPlanFirst + 12);
  plan->ep_rows = slot(frame, kPlanFirst + 13);
}

/* Router slots: see kPlanFirst. */
static frugal_error* router_op(int32_t op, frugal_router* r, frugal_go_frame* frame) {
  frugal_route_plan plan;
  fill_plan(&plan, frame);
  if (op == FRUGAL_GO_ROUTE) {
    frugal_route_args args;
    memset(&args, 0, sizeof args);
    args.struct_size = sizeof args;
    args.logits = slot(frame, 0);
    args.plan = &plan;
    return frugal_router_route(r, &args);
  }
  if (op == FRUGAL_GO_ROUTE_STATS) return frugal_router_stats(r, &plan, &frame->route_stats);
  if (op == FRUGAL_GO_ROUTER_UPDATE) return frugal_router_update(r, slot(frame, 0));
  if (op == FRUGAL_GO_EP_SHAPE) return frugal_router_ep_shape(r, &plan, &frame->ep_shape);
  if (op == FRUGAL_GO_EP_DISPATCH) {
    frugal_route_dispatch_args args;
    memset(&args, 0, sizeof args);
    args.struct_size = sizeof args;
    args.plan = &plan;
    args.input = slot(frame, kRouterInput);
    args.output = slot(frame, kRouterOutput);
    args.expert_offsets = slot(frame, 0);
    args.row_token = slot(frame, kRouterRowToken);
    return frugal_router_ep_dispatch(r, &args);
  }
  frugal_route_move_args move;
  memset(&move, 0, sizeof move);
  move.struct_size = sizeof move;
  move.plan = &plan;
  move.input = slot(frame, kRouterInput);
  move.output = slot(frame, kRouterOutput);
  if (op == FRUGAL_GO_EP_COMBINE) return frugal_router_ep_combine(r, &move);
  return op == FRUGAL_GO_PERMUTE ? frugal_router_permute(r, &move) : frugal_router_combine(r, &move);
}

/*
 * GEMM slots: 0 a codes, 1-3 a scale_inv, scale, amax; 4 b codes, 5-7 its
 * scales; 8 d, 9-11 d scale_inv, scale, amax (d's meta only when one of
 * them is given: FP8 outputs). Per-tensor metas with the frame's mode.
 */
static frugal_error* gemm(frugal_quantizer* q, frugal_go_frame* frame) {
  frugal_quant_meta meta_a, meta_b, meta_d;
  fill_meta(&meta_a, frame, 1, 2, 3);
  fill_meta(&meta_b, frame, 5, 6, 7);
  fill_meta(&meta_d, frame, 9, 10, 11);
  frame->tensors[0].quant = &meta_a;
  frame->tensors[4].quant = &meta_b;
  if (frame->present[9] || frame->present[10] || frame->present[11]) frame->tensors[8].quant = &meta_d;
  frugal_quant_gemm_args args;
  memset(&args, 0, sizeof args);
  args.struct_size = sizeof args;
  args.a = slot(frame, 0);
  args.b = slot(frame, 4);
  args.d = slot(frame, 8);
  args.alpha = frame->gemm_alpha;
  args.flags = frame->gemm_flags;
  frugal_error* err = frugal_quantizer_gemm(q, &args);
  frame->tensors[0].quant = NULL;
  frame->tensors[4].quant = NULL;
  frame->tensors[8].quant = NULL;
  return err;
}

frugal_error* frugal_go_call(int32_t op, void* handle, frugal_go_frame* frame, void* p0, void* p1, void* p2, void* p3,
                             void* p4, void* p5, void* p6, void* p7, void* p8, void* p9, void* p10, void* p11,
                             void* p12, void* p13, void* p14, void* p15, void* p16, void* p17) {
  void* data[FRUGAL_GO_FRAME_TENSORS] = {p0, p1,  p2,  p3,  p4,  p5,  p6,  p7,  p8,
                                         p9, p10, p11, p12, p13, p14, p15, p16, p17};
  for (int i = 0; i < FRUGAL_GO_FRAME_TENSORS; ++i) frame->tensors[i].data = data[i];
  frugal_error* err;
  switch (op) {
    case FRUGAL_GO_QUANTIZE: err = quantize((frugal_quantizer*)handle, frame); break;
    case FRUGAL_GO_DEQUANTIZE: err = dequantize((frugal_quantizer*)handle, frame); break;
    case FRUGAL_GO_GEMM: err = gemm((frugal_quantizer*)handle, frame); break;
    case FRUGAL_GO_ROUTE:
    case FRUGAL_GO_PERMUTE:
    case FRUGAL_GO_COMBINE:
    case FRUGAL_GO_ROUTE_STATS:
    case FRUGAL_GO_ROUTER_UPDATE:
    case FRUGAL_GO_EP_SHAPE:
    case FRUGAL_GO_EP_DISPATCH:
    case FRUGAL_GO_EP_COMBINE: err = router_op(op, (frugal_router*)handle, frame); break;
    default: err = frugal_error_create(FRUGAL_ERR_INTERNAL, "go binding: unknown shim operation"); break;
  }
  /* cgo: C must not keep a Go pointer once the call returns. */
  for (int i = 0; i < FRUGAL_GO_FRAME_TENSORS; ++i) frame->tensors[i].data = NULL;
  return err;
}

static frugal_error* comm_op(int32_t op, frugal_comm* comm, const frugal_go_frame* frame, int32_t arg,
                             const size_t* send_counts, const size_t* send_displs, const size_t* recv_counts,
                             const size_t* recv_displs) {
  const frugal_tensor* send = slot(frame, 0);
  const frugal_tensor* recv = slot(frame, 1);
  switch (op) {
    case FRUGAL_COMM_ALL_REDUCE: return frugal_comm_all_reduce(comm, send, recv, arg);
    case FRUGAL_COMM_BROADCAST: return frugal_comm_broadcast(comm, recv, arg);
    case FRUGAL_COMM_ALL_GATHER: return frugal_comm_all_gather(comm, send, recv);
    case FRUGAL_COMM_ALL_GATHER_V: return frugal_comm_all_gather_v(comm, send, recv, recv_counts, recv_displs);
    case FRUGAL_COMM_REDUCE_SCATTER: return frugal_comm_reduce_scatter(comm, send, recv, arg);
    case FRUGAL_COMM_ALL_TO_ALL: return frugal_comm_all_to_all(comm, send, recv);
    case FRUGAL_COMM_ALL_TO_ALL_V:
      return frugal_comm_all_to_all_v(comm, send, send_counts, send_displs, recv, recv_counts, recv_displs);
    default: return frugal_error_create(FRUGAL_ERR_INTERNAL, "go binding: unknown comm operation");
  }
}

frugal_error* frugal_go_comm_call(int32_t op, frugal_comm* comm, frugal_go_frame* frame, void* send_data,
                                  void* recv_data, int32_t arg, const size_t* send_counts, const size_t* send_displs,
                                  const size_t* recv_counts, const size_t* recv_displs) {
  frame->tensors[0].data = send_data;
  frame->tensors[1].data = recv_data;
  frugal_error* err = comm_op(op, comm, frame, arg, send_counts, send_displs, recv_counts, recv_displs);
  /* cgo: C must not keep a Go pointer once the call returns. */
  frame->tensors[0].data = NULL;
  frame->tensors[1].data = NULL;
  return err;
}

static frugal_ckpt_save_args save_args(int32_t kind, uint32_t flags, uint64_t step, const void* metadata,
                                       size_t metadata_size) {
  frugal_ckpt_save_args args;
  memset(&args, 0, sizeof args);
  args.struct_size = sizeof args;
  args.kind = kind;
  args.flags = flags;
  args.step = step;
  args.metadata = metadata;
  args.metadata_size = metadata_size;
  return args;
}

frugal_error* frugal_go_ckpt_save(frugal_ckpt_engine* engine, int32_t kind, uint32_t flags, uint64_t step,
                                  const void* metadata, size_t metadata_size, frugal_ckpt_save_result* result) {
  const frugal_ckpt_save_args args = save_args(kind, flags, step, metadata, metadata_size);
  return frugal_ckpt_save(engine, &args, result);
}

frugal_error* frugal_go_ckpt_register_slice(frugal_ckpt_engine* engine, const char* name, const frugal_tensor* view,
                                            int32_t ndim, const int64_t* global_shape, const int64_t* offsets,
                                            int32_t replicated, uint32_t kinds) {
  frugal_ckpt_slice slice;
  memset(&slice, 0, sizeof slice);
  slice.struct_size = sizeof slice;
  slice.ndim = ndim;
  slice.replicated = replicated;
  slice.global_shape = global_shape;
  slice.offsets = offsets;
  return frugal_ckpt_register_slice(engine, name, view, &slice, kinds);
}

static int32_t ckpt_list_trampoline(void* user_data, const frugal_ckpt_info* info) {
  return frugalGoCkptListVisit((uintptr_t)user_data, (frugal_ckpt_info*)info);
}

frugal_error* frugal_go_ckpt_list(frugal_ckpt_engine* engine, uint32_t flags, uintptr_t handle) {
  return frugal_ckpt_list(engine, flags, ckpt_list_trampoline, (void*)handle);
}

static int32_t store_list_trampoline(void* user_data, const char* key, uint64_t size) {
  return frugalGoStoreListVisit((uintptr_t)user_data, (char*)key, size);
}

frugal_error* frugal_go_store_list(frugal_store* store, const char* prefix, uintptr_t handle) {
  return frugal_store_list(store, prefix, store_list_trampoline, (void*)handle);
}

frugal_error* frugal_go_ckpt_emergency_save(frugal_ckpt_engine* engine, uint64_t step, const void* metadata,
                                            size_t metadata_size, double deadline_seconds,
                                            frugal_ckpt_emergency_result* result) {
  /* The kind is ignored: an emergency save is always a heartbeat. */
  const frugal_ckpt_save_args args = save_args(FRUGAL_CKPT_HEARTBEAT, 0, step, metadata, metadata_size);
  return frugal_ckpt_emergency_save(engine, &args, deadline_seconds, result);
}

frugal_error* frugal_go_pack_gather(const frugal_pack_plan* plan, size_t pack, const int64_t* tokens,
                                    const int64_t* sequence_offsets, size_t sequence_count, const int64_t* labels,
                                    int64_t* out_tokens, int64_t* out_labels, size_t out_length, int64_t pad_token,
                                    int64_t ignore_index, int32_t mask_first_label) {
  frugal_pack_gather_args args;
  memset(&args, 0, sizeof args);
  args.struct_size = sizeof args;
  args.tokens = tokens;
  args.sequence_offsets = sequence_offsets;
  args.sequence_count = sequence_count;
  args.labels = labels;
  args.out_tokens = out_tokens;
  args.out_labels = out_labels;
  args.out_length = out_length;
  args.pad_token = pad_token;
  args.ignore_index = ignore_index;
  args.mask_first_label = mask_first_label;
  return frugal_pack_plan_gather(plan, pack, &args);
}

static void log_trampoline(void* user_data, int32_t level, const char* source, const char* message) {
  frugalGoLog((uintptr_t)user_data, level, (char*)source, (char*)message);
}

frugal_error* frugal_go_set_log_callback(frugal_context* context, int32_t enabled, uintptr_t handle,
                                         int32_t min_level) {
  if (!enabled) return frugal_context_set_log_callback(context, NULL, NULL, min_level);
  return frugal_context_set_log_callback(context, log_trampoline, (void*)handle, min_level);
}

static frugal_error* state_export_trampoline(void* user_data, void* buffer, size_t capacity, size_t* size) {
  return frugalGoStateExport((uintptr_t)user_data, buffer, capacity, size);
}

static frugal_error* state_import_trampoline(void* user_data, const void* data, size_t size) {
  return frugalGoStateImport((uintptr_t)user_data, (void*)data, size);
}

frugal_error* frugal_go_ckpt_register_state(frugal_ckpt_engine* engine, const char* name, uintptr_t handle,
                                            uint32_t kinds) {
  frugal_ckpt_state_fns fns;
  fns.struct_size = sizeof fns;
  fns.user_data = (void*)handle;
  fns.export_state = state_export_trampoline;
  fns.import_state = state_import_trampoline;
  return frugal_ckpt_register_state(engine, name, &fns, kinds);
}

static void release_trampoline(void* user_data) { frugalGoRelease((uintptr_t)user_data); }

frugal_error* frugal_go_managed_wrap(int32_t dtype, int32_t ndim, const int64_t* shape, void* data, int32_t has_release,
                                     uintptr_t handle, frugal_managed_tensor** out) {
  frugal_tensor view;
  memset(&view, 0, sizeof view);
  view.struct_size = sizeof view;
  view.data = data;
  view.dtype = dtype;
  view.ndim = ndim;
  view.device.type = FRUGAL_DEVICE_CPU;
  view.shape = shape; /* copied by wrap */
  return frugal_managed_tensor_wrap(&view, has_release ? release_trampoline : NULL, (void*)handle, out);
}

void frugal_go_dlpack_delete(frugal_dlpack_managed_tensor* tensor) {
  if (tensor != NULL && tensor->deleter != NULL) tensor->deleter(tensor);
}

void frugal_go_dlpack_delete_versioned(frugal_dlpack_managed_tensor_versioned* tensor) {
  if (tensor != NULL && tensor->deleter != NULL) tensor->deleter(tensor);
}
