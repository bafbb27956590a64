/*
 * layout_probe.c: prints what the C compiler makes of the frugal headers,
 * so the Rust raw layer (src/sys) can be checked against the C side, which
 * is the source of truth. tests/layout.rs compiles and runs it under
 * `cargo test` and compares its output with the Rust structs field by field.
 *
 * Output, one fact per line:
 *   size   <struct> <bytes>
 *   offset <struct>.<field> <bytes>
 *   const  <macro or enumerator> <value>
 *   string <macro> <value>
 *
 * Every struct defined in src/sys must be listed here with all its fields;
 * the test fails on a struct or field present on one side only.
 */
#include <stddef.h>
#include <stdio.h>

#include "frugal/checkpoint.h"
#include "frugal/comm.h"
#include "frugal/context.h"
#include "frugal/dlpack.h"
#include "frugal/error.h"
#include "frugal/loss_scaler.h"
#include "frugal/managed_tensor.h"
#include "frugal/options.h"
#include "frugal/packer.h"
#include "frugal/plugin.h"
#include "frugal/quantizer.h"
#include "frugal/router.h"
#include "frugal/schedule.h"
#include "frugal/scheduler.h"
#include "frugal/store.h"
#include "frugal/telemetry.h"
#include "frugal/tensor.h"
#include "frugal/types.h"
#include "frugal/version.h"

#define SIZE(T) printf("size %s %lu\n", #T, (unsigned long)sizeof(T))
#define OFF(T, f) printf("offset %s.%s %lu\n", #T, #f, (unsigned long)offsetof(T, f))
#define CONST(N) printf("const %s %lld\n", #N, (long long)(N))

int main(void) {
  /* types.h */
  SIZE(frugal_ext_header);
  OFF(frugal_ext_header, struct_size);
  OFF(frugal_ext_header, type);
  OFF(frugal_ext_header, reserved);
  OFF(frugal_ext_header, next);

  /* context.h */
  SIZE(frugal_plugin_info);
  OFF(frugal_plugin_info, struct_size);
  OFF(frugal_plugin_info, name);
  OFF(frugal_plugin_info, version);
  OFF(frugal_plugin_info, vendor);
  OFF(frugal_plugin_info, license);
  OFF(frugal_plugin_info, description);
  OFF(frugal_plugin_info, path);
  OFF(frugal_plugin_info, abi_major);
  OFF(frugal_plugin_info, abi_minor);
  OFF(frugal_plugin_info, strategy_count);

  SIZE(frugal_strategy_info);
  OFF(frugal_strategy_info, struct_size);
  OFF(frugal_strategy_info, kind);
  OFF(frugal_strategy_info, flags);
  OFF(frugal_strategy_info, name);
  OFF(frugal_strategy_info, summary);
  OFF(frugal_strategy_info, plugin_name);
  OFF(frugal_strategy_info, shadowed);
  OFF(frugal_strategy_info, reserved);
  OFF(frugal_strategy_info, option_count);

  SIZE(frugal_option_info);
  OFF(frugal_option_info, struct_size);
  OFF(frugal_option_info, name);
  OFF(frugal_option_info, type);
  OFF(frugal_option_info, flags);
  OFF(frugal_option_info, default_value);
  OFF(frugal_option_info, min);
  OFF(frugal_option_info, max);
  OFF(frugal_option_info, choices);
  OFF(frugal_option_info, doc);

  SIZE(frugal_load_failure_info);
  OFF(frugal_load_failure_info, struct_size);
  OFF(frugal_load_failure_info, path);
  OFF(frugal_load_failure_info, message);
  OFF(frugal_load_failure_info, code);
  OFF(frugal_load_failure_info, reserved);

  /* tensor.h */
  SIZE(frugal_device);
  OFF(frugal_device, type);
  OFF(frugal_device, id);

  SIZE(frugal_quant_meta);
  OFF(frugal_quant_meta, struct_size);
  OFF(frugal_quant_meta, scaling_mode);
  OFF(frugal_quant_meta, block_rows);
  OFF(frugal_quant_meta, block_cols);
  OFF(frugal_quant_meta, reserved);
  OFF(frugal_quant_meta, scale);
  OFF(frugal_quant_meta, scale_inv);
  OFF(frugal_quant_meta, amax);
  OFF(frugal_quant_meta, ext);

  SIZE(frugal_tensor);
  OFF(frugal_tensor, struct_size);
  OFF(frugal_tensor, data);
  OFF(frugal_tensor, byte_offset);
  OFF(frugal_tensor, dtype);
  OFF(frugal_tensor, ndim);
  OFF(frugal_tensor, device);
  OFF(frugal_tensor, shape);
  OFF(frugal_tensor, strides);
  OFF(frugal_tensor, quant);
  OFF(frugal_tensor, ext);

  /* packer.h */
  SIZE(frugal_pack_stats);
  OFF(frugal_pack_stats, struct_size);
  OFF(frugal_pack_stats, packs);
  OFF(frugal_pack_stats, units);
  OFF(frugal_pack_stats, sequences);
  OFF(frugal_pack_stats, real_tokens);
  OFF(frugal_pack_stats, max_len);
  OFF(frugal_pack_stats, lower_bound);
  OFF(frugal_pack_stats, lower_bound_tight);
  OFF(frugal_pack_stats, efficiency);
  OFF(frugal_pack_stats, padding_before);
  OFF(frugal_pack_stats, padding_after);
  OFF(frugal_pack_stats, speedup);
  OFF(frugal_pack_stats, truncated_sequences);
  OFF(frugal_pack_stats, truncated_tokens);
  OFF(frugal_pack_stats, split_sequences);
  OFF(frugal_pack_stats, method);

  SIZE(frugal_pack_plan_view);
  OFF(frugal_pack_plan_view, struct_size);
  OFF(frugal_pack_plan_view, pack_count);
  OFF(frugal_pack_plan_view, unit_count);
  OFF(frugal_pack_plan_view, pack_offsets);
  OFF(frugal_pack_plan_view, sequence_ids);
  OFF(frugal_pack_plan_view, token_offsets);
  OFF(frugal_pack_plan_view, unit_lengths);
  OFF(frugal_pack_plan_view, pack_tokens);

  SIZE(frugal_pack_gather_args);
  OFF(frugal_pack_gather_args, struct_size);
  OFF(frugal_pack_gather_args, tokens);
  OFF(frugal_pack_gather_args, sequence_offsets);
  OFF(frugal_pack_gather_args, sequence_count);
  OFF(frugal_pack_gather_args, labels);
  OFF(frugal_pack_gather_args, out_tokens);
  OFF(frugal_pack_gather_args, out_labels);
  OFF(frugal_pack_gather_args, out_length);
  OFF(frugal_pack_gather_args, pad_token);
  OFF(frugal_pack_gather_args, ignore_index);
  OFF(frugal_pack_gather_args, mask_first_label);

  /* telemetry.h */
  SIZE(frugal_telemetry);
  OFF(frugal_telemetry, struct_size);
  OFF(frugal_telemetry, flags);
  OFF(frugal_telemetry, nodes);
  OFF(frugal_telemetry, step);
  OFF(frugal_telemetry, tokens);
  OFF(frugal_telemetry, loss);
  OFF(frugal_telemetry, eval_loss);
  OFF(frugal_telemetry, wall_time_s);
  OFF(frugal_telemetry, price_per_node_hour);
  OFF(frugal_telemetry, resource);
  OFF(frugal_telemetry, checkpoint_done);
  OFF(frugal_telemetry, checkpoint_stall_s);
  OFF(frugal_telemetry, preemption_notice_s);

  SIZE(frugal_decision);
  OFF(frugal_decision, struct_size);
  OFF(frugal_decision, lr);
  OFF(frugal_decision, checkpoint);
  OFF(frugal_decision, resource);
  OFF(frugal_decision, target_nodes);
  OFF(frugal_decision, stop);
  OFF(frugal_decision, next_due_s);
  OFF(frugal_decision, reason);

  /* scheduler.h */
  SIZE(frugal_scheduler_config);
  OFF(frugal_scheduler_config, struct_size);
  OFF(frugal_scheduler_config, schedule);
  OFF(frugal_scheduler_config, schedule_options);
  OFF(frugal_scheduler_config, policies);
  OFF(frugal_scheduler_config, policy_options);
  OFF(frugal_scheduler_config, policy_count);
  OFF(frugal_scheduler_config, gpus_per_node);
  OFF(frugal_scheduler_config, reserved0);
  OFF(frugal_scheduler_config, comm);

  SIZE(frugal_cost_ledger);
  OFF(frugal_cost_ledger, struct_size);
  OFF(frugal_cost_ledger, dollars);
  OFF(frugal_cost_ledger, spot_dollars);
  OFF(frugal_cost_ledger, reserved_dollars);
  OFF(frugal_cost_ledger, productive_dollars);
  OFF(frugal_cost_ledger, stall_dollars);
  OFF(frugal_cost_ledger, lost_dollars);
  OFF(frugal_cost_ledger, gpu_hours);
  OFF(frugal_cost_ledger, wall_s);
  OFF(frugal_cost_ledger, productive_s);
  OFF(frugal_cost_ledger, stall_s);
  OFF(frugal_cost_ledger, lost_s);
  OFF(frugal_cost_ledger, restarts);
  OFF(frugal_cost_ledger, checkpoints_full);
  OFF(frugal_cost_ledger, checkpoints_heartbeat);
  OFF(frugal_cost_ledger, loss_first);
  OFF(frugal_cost_ledger, loss_best);
  OFF(frugal_cost_ledger, dollars_per_loss);

  /* dlpack.h */
  SIZE(frugal_dlpack_version);
  OFF(frugal_dlpack_version, major);
  OFF(frugal_dlpack_version, minor);

  SIZE(frugal_dlpack_device);
  OFF(frugal_dlpack_device, device_type);
  OFF(frugal_dlpack_device, device_id);

  SIZE(frugal_dlpack_dtype);
  OFF(frugal_dlpack_dtype, code);
  OFF(frugal_dlpack_dtype, bits);
  OFF(frugal_dlpack_dtype, lanes);

  SIZE(frugal_dlpack_tensor);
  OFF(frugal_dlpack_tensor, data);
  OFF(frugal_dlpack_tensor, device);
  OFF(frugal_dlpack_tensor, ndim);
  OFF(frugal_dlpack_tensor, dtype);
  OFF(frugal_dlpack_tensor, shape);
  OFF(frugal_dlpack_tensor, strides);
  OFF(frugal_dlpack_tensor, byte_offset);

  SIZE(frugal_dlpack_managed_tensor);
  OFF(frugal_dlpack_managed_tensor, dl_tensor);
  OFF(frugal_dlpack_managed_tensor, manager_ctx);
  OFF(frugal_dlpack_managed_tensor, deleter);

  SIZE(frugal_dlpack_managed_tensor_versioned);
  OFF(frugal_dlpack_managed_tensor_versioned, version);
  OFF(frugal_dlpack_managed_tensor_versioned, manager_ctx);
  OFF(frugal_dlpack_managed_tensor_versioned, deleter);
  OFF(frugal_dlpack_managed_tensor_versioned, flags);
  OFF(frugal_dlpack_managed_tensor_versioned, dl_tensor);

  /* quantizer_vtable.h */
  SIZE(frugal_quant_layout);
  OFF(frugal_quant_layout, struct_size);
  OFF(frugal_quant_layout, dtype);
  OFF(frugal_quant_layout, scaling_mode);
  OFF(frugal_quant_layout, block_rows);
  OFF(frugal_quant_layout, block_cols);
  OFF(frugal_quant_layout, scale_dtype);
  OFF(frugal_quant_layout, flags);

  SIZE(frugal_quant_zero_point_ext);
  OFF(frugal_quant_zero_point_ext, header);
  OFF(frugal_quant_zero_point_ext, zero_point);

  SIZE(frugal_quantize_args);
  OFF(frugal_quantize_args, struct_size);
  OFF(frugal_quantize_args, input);
  OFF(frugal_quantize_args, output);
  OFF(frugal_quantize_args, output_t);
  OFF(frugal_quantize_args, fake);
  OFF(frugal_quantize_args, stream);
  OFF(frugal_quantize_args, flags);
  OFF(frugal_quantize_args, reserved);

  SIZE(frugal_dequantize_args);
  OFF(frugal_dequantize_args, struct_size);
  OFF(frugal_dequantize_args, input);
  OFF(frugal_dequantize_args, output);
  OFF(frugal_dequantize_args, stream);

  SIZE(frugal_quant_gemm_args);
  OFF(frugal_quant_gemm_args, struct_size);
  OFF(frugal_quant_gemm_args, a);
  OFF(frugal_quant_gemm_args, b);
  OFF(frugal_quant_gemm_args, d);
  OFF(frugal_quant_gemm_args, stream);
  OFF(frugal_quant_gemm_args, alpha);
  OFF(frugal_quant_gemm_args, flags);

  /* router.h and router_vtable.h */
  SIZE(frugal_route_layout);
  OFF(frugal_route_layout, struct_size);
  OFF(frugal_route_layout, choice);
  OFF(frugal_route_layout, experts);
  OFF(frugal_route_layout, top_k);
  OFF(frugal_route_layout, drop_policy);
  OFF(frugal_route_layout, capacity_factor);
  OFF(frugal_route_layout, flags);
  OFF(frugal_route_layout, reserved);
  OFF(frugal_route_layout, ep_rank);
  OFF(frugal_route_layout, ep_ranks);

  SIZE(frugal_route_plan);
  OFF(frugal_route_plan, struct_size);
  OFF(frugal_route_plan, expert_ids);
  OFF(frugal_route_plan, weights);
  OFF(frugal_route_plan, dropped);
  OFF(frugal_route_plan, slot_row);
  OFF(frugal_route_plan, expert_offsets);
  OFF(frugal_route_plan, expert_demand);
  OFF(frugal_route_plan, row_token);
  OFF(frugal_route_plan, row_weight);
  OFF(frugal_route_plan, token_offsets);
  OFF(frugal_route_plan, token_rows);
  OFF(frugal_route_plan, mean_prob);
  OFF(frugal_route_plan, losses);
  OFF(frugal_route_plan, ep_tokens);
  OFF(frugal_route_plan, ep_rows);

  SIZE(frugal_route_args);
  OFF(frugal_route_args, struct_size);
  OFF(frugal_route_args, logits);
  OFF(frugal_route_args, plan);
  OFF(frugal_route_args, stream);

  SIZE(frugal_route_move_args);
  OFF(frugal_route_move_args, struct_size);
  OFF(frugal_route_move_args, plan);
  OFF(frugal_route_move_args, input);
  OFF(frugal_route_move_args, output);
  OFF(frugal_route_move_args, stream);

  SIZE(frugal_route_shape);
  OFF(frugal_route_shape, struct_size);
  OFF(frugal_route_shape, tokens);
  OFF(frugal_route_shape, capacity);
  OFF(frugal_route_shape, max_rows);

  SIZE(frugal_route_stats);
  OFF(frugal_route_stats, struct_size);
  OFF(frugal_route_stats, tokens);
  OFF(frugal_route_stats, assignments);
  OFF(frugal_route_stats, kept);
  OFF(frugal_route_stats, dropped);
  OFF(frugal_route_stats, max_load);
  OFF(frugal_route_stats, max_over_mean);
  OFF(frugal_route_stats, dropped_fraction);
  OFF(frugal_route_stats, aux_loss);
  OFF(frugal_route_stats, z_loss);

  SIZE(frugal_route_ep_shape);
  OFF(frugal_route_ep_shape, struct_size);
  OFF(frugal_route_ep_shape, rank);
  OFF(frugal_route_ep_shape, ranks);
  OFF(frugal_route_ep_shape, first_expert);
  OFF(frugal_route_ep_shape, local_experts);
  OFF(frugal_route_ep_shape, group_tokens);
  OFF(frugal_route_ep_shape, token_offset);
  OFF(frugal_route_ep_shape, sent_rows);
  OFF(frugal_route_ep_shape, received_rows);

  SIZE(frugal_route_dispatch_args);
  OFF(frugal_route_dispatch_args, struct_size);
  OFF(frugal_route_dispatch_args, plan);
  OFF(frugal_route_dispatch_args, input);
  OFF(frugal_route_dispatch_args, output);
  OFF(frugal_route_dispatch_args, expert_offsets);
  OFF(frugal_route_dispatch_args, row_token);
  OFF(frugal_route_dispatch_args, stream);

  /* checkpoint.h */
  SIZE(frugal_ckpt_save_args);
  OFF(frugal_ckpt_save_args, struct_size);
  OFF(frugal_ckpt_save_args, kind);
  OFF(frugal_ckpt_save_args, flags);
  OFF(frugal_ckpt_save_args, step);
  OFF(frugal_ckpt_save_args, metadata);
  OFF(frugal_ckpt_save_args, metadata_size);

  SIZE(frugal_ckpt_save_result);
  OFF(frugal_ckpt_save_result, struct_size);
  OFF(frugal_ckpt_save_result, name);
  OFF(frugal_ckpt_save_result, skipped);
  OFF(frugal_ckpt_save_result, reserved);
  OFF(frugal_ckpt_save_result, bytes);
  OFF(frugal_ckpt_save_result, wait_seconds);
  OFF(frugal_ckpt_save_result, snapshot_seconds);

  SIZE(frugal_ckpt_persist_result);
  OFF(frugal_ckpt_persist_result, struct_size);
  OFF(frugal_ckpt_persist_result, name);
  OFF(frugal_ckpt_persist_result, bytes);
  OFF(frugal_ckpt_persist_result, persist_seconds);

  SIZE(frugal_ckpt_info);
  OFF(frugal_ckpt_info, struct_size);
  OFF(frugal_ckpt_info, name);
  OFF(frugal_ckpt_info, kind);
  OFF(frugal_ckpt_info, status);
  OFF(frugal_ckpt_info, step);
  OFF(frugal_ckpt_info, sequence);
  OFF(frugal_ckpt_info, created_unix_ns);
  OFF(frugal_ckpt_info, bytes);
  OFF(frugal_ckpt_info, tensor_count);
  OFF(frugal_ckpt_info, state_count);
  OFF(frugal_ckpt_info, emergency);
  OFF(frugal_ckpt_info, reason);
  OFF(frugal_ckpt_info, full_source);
  OFF(frugal_ckpt_info, not_restored_count);
  OFF(frugal_ckpt_info, world_size);
  OFF(frugal_ckpt_info, reserved);

  SIZE(frugal_ckpt_slice);
  OFF(frugal_ckpt_slice, struct_size);
  OFF(frugal_ckpt_slice, ndim);
  OFF(frugal_ckpt_slice, replicated);
  OFF(frugal_ckpt_slice, global_shape);
  OFF(frugal_ckpt_slice, offsets);

  SIZE(frugal_ckpt_emergency_result);
  OFF(frugal_ckpt_emergency_result, struct_size);
  OFF(frugal_ckpt_emergency_result, name);
  OFF(frugal_ckpt_emergency_result, committed);
  OFF(frugal_ckpt_emergency_result, reserved);
  OFF(frugal_ckpt_emergency_result, seconds);

  SIZE(frugal_ckpt_state_fns);
  OFF(frugal_ckpt_state_fns, struct_size);
  OFF(frugal_ckpt_state_fns, user_data);
  OFF(frugal_ckpt_state_fns, export_state);
  OFF(frugal_ckpt_state_fns, import_state);

  /* loss_scaler.h */
  SIZE(frugal_loss_scaler_status);
  OFF(frugal_loss_scaler_status, struct_size);
  OFF(frugal_loss_scaler_status, scale);
  OFF(frugal_loss_scaler_status, clean_steps);
  OFF(frugal_loss_scaler_status, skipped_steps);

  /* Constants the raw layer repeats. */
  CONST(FRUGAL_ABI_VERSION_MAJOR);
  CONST(FRUGAL_ABI_VERSION_MINOR);
  CONST(FRUGAL_ABI_VERSION);
  CONST(FRUGAL_VERSION_MAJOR);
  CONST(FRUGAL_VERSION_MINOR);
  CONST(FRUGAL_VERSION_PATCH);
  CONST(FRUGAL_OK);
  CONST(FRUGAL_ERR_INVALID_ARGUMENT);
  CONST(FRUGAL_ERR_NOT_FOUND);
  CONST(FRUGAL_ERR_ALREADY_EXISTS);
  CONST(FRUGAL_ERR_OUT_OF_RANGE);
  CONST(FRUGAL_ERR_UNIMPLEMENTED);
  CONST(FRUGAL_ERR_UNSUPPORTED);
  CONST(FRUGAL_ERR_ABI_MISMATCH);
  CONST(FRUGAL_ERR_PLUGIN_INVALID);
  CONST(FRUGAL_ERR_IO);
  CONST(FRUGAL_ERR_DATA_CORRUPTED);
  CONST(FRUGAL_ERR_OUT_OF_MEMORY);
  CONST(FRUGAL_ERR_FAILED_PRECONDITION);
  CONST(FRUGAL_ERR_DEADLINE_EXCEEDED);
  CONST(FRUGAL_ERR_CANCELLED);
  CONST(FRUGAL_ERR_DEVICE);
  CONST(FRUGAL_ERR_INTERNAL);
  CONST(FRUGAL_OPTION_INT);
  CONST(FRUGAL_OPTION_DOUBLE);
  CONST(FRUGAL_OPTION_BOOL);
  CONST(FRUGAL_OPTION_STRING);
  CONST(FRUGAL_OPTION_COMM);
  CONST(FRUGAL_LOG_TRACE);
  CONST(FRUGAL_LOG_DEBUG);
  CONST(FRUGAL_LOG_INFO);
  CONST(FRUGAL_LOG_WARN);
  CONST(FRUGAL_LOG_ERROR);
  CONST(FRUGAL_LOG_OFF);
  CONST(FRUGAL_KIND_ROUTER);
  CONST(FRUGAL_KIND_QUANTIZER);
  CONST(FRUGAL_KIND_PACKER);
  CONST(FRUGAL_KIND_POLICY);
  CONST(FRUGAL_KIND_SCHEDULE);
  CONST(FRUGAL_KIND_STORE);
  CONST(FRUGAL_KIND_COMM);
  CONST(FRUGAL_STRATEGY_THREAD_SAFE);
  CONST(FRUGAL_STRATEGY_DETERMINISTIC);
  CONST(FRUGAL_DISCOVER_NO_ENV);
  CONST(FRUGAL_DISCOVER_NO_BUILTIN);
  CONST(FRUGAL_OPTION_DECL_REQUIRED);
  CONST(FRUGAL_OPTION_DECL_HAS_MIN);
  CONST(FRUGAL_OPTION_DECL_HAS_MAX);
  CONST(FRUGAL_OPTION_DECL_DIRECTORY);
  CONST(FRUGAL_DEVICE_CPU);
  CONST(FRUGAL_DEVICE_CUDA);
  CONST(FRUGAL_DEVICE_CUDA_PINNED);
  CONST(FRUGAL_DTYPE_FLOAT32);
  CONST(FRUGAL_DTYPE_FLOAT16);
  CONST(FRUGAL_DTYPE_BFLOAT16);
  CONST(FRUGAL_DTYPE_FLOAT64);
  CONST(FRUGAL_DTYPE_FLOAT8_E4M3FN);
  CONST(FRUGAL_DTYPE_FLOAT8_E5M2);
  CONST(FRUGAL_DTYPE_FLOAT8_E8M0FNU);
  CONST(FRUGAL_DTYPE_INT8);
  CONST(FRUGAL_DTYPE_UINT8);
  CONST(FRUGAL_DTYPE_INT16);
  CONST(FRUGAL_DTYPE_INT32);
  CONST(FRUGAL_DTYPE_INT64);
  CONST(FRUGAL_DTYPE_BOOL);
  CONST(FRUGAL_TENSOR_MAX_NDIM);
  CONST(FRUGAL_SCALING_NONE);
  CONST(FRUGAL_SCALING_DELAYED);
  CONST(FRUGAL_SCALING_CURRENT);
  CONST(FRUGAL_SCALING_PER_CHANNEL);
  CONST(FRUGAL_SCALING_BLOCK);
  CONST(FRUGAL_SCALING_MX);
  CONST(FRUGAL_TELEMETRY_EVAL_LOSS);
  CONST(FRUGAL_TELEMETRY_RESTARTED);
  CONST(FRUGAL_DLPACK_MAJOR_VERSION);
  CONST(FRUGAL_DLPACK_MINOR_VERSION);
  CONST(FRUGAL_DLPACK_FLAG_READ_ONLY);
  CONST(FRUGAL_DLPACK_FLAG_IS_COPIED);
  CONST(FRUGAL_DLPACK_FLAG_IS_SUBBYTE_TYPE_PADDED);
  CONST(FRUGAL_DLPACK_INT);
  CONST(FRUGAL_DLPACK_UINT);
  CONST(FRUGAL_DLPACK_FLOAT);
  CONST(FRUGAL_DLPACK_BFLOAT);
  CONST(FRUGAL_DLPACK_BOOL);
  CONST(FRUGAL_DLPACK_FLOAT8_E4M3FN);
  CONST(FRUGAL_DLPACK_FLOAT8_E5M2);
  CONST(FRUGAL_DLPACK_FLOAT8_E8M0FNU);
  CONST(FRUGAL_QUANT_LAYOUT_ZERO_POINT);
  CONST(FRUGAL_EXT_QUANT_ZERO_POINT);
  CONST(FRUGAL_QUANTIZE_FREEZE_SCALE);
  CONST(FRUGAL_GEMM_FAST_ACCUM);
  CONST(FRUGAL_ROUTER_TOKEN_CHOICE);
  CONST(FRUGAL_ROUTER_EXPERT_CHOICE);
  CONST(FRUGAL_ROUTER_DROPLESS);
  CONST(FRUGAL_ROUTER_DROP_BY_PROBABILITY);
  CONST(FRUGAL_ROUTER_DROP_BY_POSITION);
  CONST(FRUGAL_ROUTE_LAYOUT_BIAS);
  CONST(FRUGAL_ROUTE_LAYOUT_V2_3_SIZE);
  CONST(FRUGAL_ROUTE_PLAN_V2_3_SIZE);
  CONST(FRUGAL_STORE_KEY_MAX);
  CONST(FRUGAL_CKPT_HEARTBEAT);
  CONST(FRUGAL_CKPT_FULL);
  CONST(FRUGAL_CKPT_ALL_KINDS);
  CONST(FRUGAL_CKPT_VALID);
  CONST(FRUGAL_CKPT_INCOMPLETE);
  CONST(FRUGAL_CKPT_CORRUPT);
  CONST(FRUGAL_CKPT_NEWER_FORMAT);
  CONST(FRUGAL_CKPT_UNREADABLE);
  CONST(FRUGAL_CKPT_SAVE_WAIT);
  CONST(FRUGAL_CKPT_SAVE_SKIP_IF_BUSY);
  CONST(FRUGAL_CKPT_LIST_VERIFY_SHARDS);
  CONST(FRUGAL_CKPT_NAME_CAPACITY);
  CONST(FRUGAL_CKPT_REASON_CAPACITY);
  CONST(FRUGAL_CKPT_TENSOR_NAME_CAPACITY);
  CONST(FRUGAL_CKPT_STATE_MAX_SIZE);
  CONST(FRUGAL_CKPT_NONE);
  CONST(FRUGAL_CKPT_SLICE_MIN_SIZE);
  CONST(FRUGAL_RESOURCE_UNSPECIFIED);
  CONST(FRUGAL_RESOURCE_SPOT);
  CONST(FRUGAL_RESOURCE_RESERVED);
  CONST(FRUGAL_STOP_NONE);
  CONST(FRUGAL_STOP_PLATEAU);
  CONST(FRUGAL_STOP_TARGET);
  CONST(FRUGAL_STOP_BUDGET);
  CONST(FRUGAL_STOP_POLICY);
  CONST(FRUGAL_REDUCE_SUM);
  CONST(FRUGAL_REDUCE_MAX);
  CONST(FRUGAL_REDUCE_MIN);
  CONST(FRUGAL_COMM_COLOR_NONE);
  CONST(FRUGAL_COMM_DEFAULT_TIMEOUT_MS);
  printf("string FRUGAL_VERSION_STRING %s\n", FRUGAL_VERSION_STRING);
  return 0;
}
