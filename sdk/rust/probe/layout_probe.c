/*
 * layout_probe.c: prints what the C compiler makes of the frugal headers,
 * so the Rust raw layer (src/sys) can be checked against the C side, which
 * is the source of truth. build.rs compiles and runs it; tests/layout.rs
 * compares its output with the Rust structs field by field.
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

#include "frugal/context.h"
#include "frugal/error.h"
#include "frugal/options.h"
#include "frugal/packer.h"
#include "frugal/schedule.h"
#include "frugal/scheduler.h"
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
  CONST(FRUGAL_KIND_ROUTER);
  CONST(FRUGAL_KIND_QUANTIZER);
  CONST(FRUGAL_KIND_PACKER);
  CONST(FRUGAL_KIND_POLICY);
  CONST(FRUGAL_KIND_SCHEDULE);
  CONST(FRUGAL_KIND_STORE);
  CONST(FRUGAL_STRATEGY_THREAD_SAFE);
  CONST(FRUGAL_STRATEGY_DETERMINISTIC);
  CONST(FRUGAL_DISCOVER_NO_ENV);
  CONST(FRUGAL_DISCOVER_NO_BUILTIN);
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
  printf("string FRUGAL_VERSION_STRING %s\n", FRUGAL_VERSION_STRING);
  return 0;
}
