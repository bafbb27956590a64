"""ctypes mirrors of the C structs in abi/include/frugal/*.h.

Field order, types and sizes follow the headers exactly; tests/test_layout.py
compares every size and offset with a C probe compiled against the headers.
Enumerations travel as fixed-width integers, as the headers carry them.

Callers fill ``struct_size`` with :func:`sized`, which is what the ABI's
"the caller sets struct_size, the core fills up to it" rule asks for.
Nothing here owns memory: these are plain value types.
"""

import ctypes
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_char,
    c_char_p,
    c_double,
    c_float,
    c_int32,
    c_int64,
    c_size_t,
    c_uint8,
    c_uint16,
    c_uint32,
    c_uint64,
    c_void_p,
)

#: Longest checkpoint name including the NUL (FRUGAL_CKPT_NAME_CAPACITY).
CKPT_NAME_CAPACITY = 64
#: Capacity of frugal_ckpt_info.reason including the NUL (FRUGAL_CKPT_REASON_CAPACITY).
CKPT_REASON_CAPACITY = 256
#: Longest registered tensor name including the NUL (FRUGAL_CKPT_TENSOR_NAME_CAPACITY).
CKPT_TENSOR_NAME_CAPACITY = 256
#: Largest ndim of a frugal tensor (FRUGAL_TENSOR_MAX_NDIM).
TENSOR_MAX_NDIM = 32


def sized(struct_type, **fields):
    """Returns a zeroed ``struct_type`` with struct_size set to its sizeof and ``fields`` assigned."""
    value = struct_type()
    value.struct_size = ctypes.sizeof(struct_type)
    for name, field_value in fields.items():
        setattr(value, name, field_value)
    return value


# --- types.h ---------------------------------------------------------------


class ExtHeader(Structure):
    """frugal_ext_header: the header of every extension struct."""


ExtHeader._fields_ = [
    ("struct_size", c_size_t),
    ("type", c_int32),
    ("reserved", c_int32),
    ("next", POINTER(ExtHeader)),
]


# --- tensor.h --------------------------------------------------------------


class Device(Structure):
    """frugal_device: device type (1 CPU, 2 CUDA, 3 CUDA pinned) and index."""

    _fields_ = [("type", c_int32), ("id", c_int32)]


class FrugalTensor(Structure):
    """frugal_tensor: a non-owning tensor view."""


class QuantMeta(Structure):
    """frugal_quant_meta: the scales travelling with quantized data."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("scaling_mode", c_int32),
        ("block_rows", c_int32),
        ("block_cols", c_int32),
        ("reserved", c_int32),
        ("scale", POINTER(FrugalTensor)),
        ("scale_inv", POINTER(FrugalTensor)),
        ("amax", POINTER(FrugalTensor)),
        ("ext", POINTER(ExtHeader)),
    ]


FrugalTensor._fields_ = [
    ("struct_size", c_size_t),
    ("data", c_void_p),
    ("byte_offset", c_uint64),
    ("dtype", c_int32),
    ("ndim", c_int32),
    ("device", Device),
    ("shape", POINTER(c_int64)),
    ("strides", POINTER(c_int64)),
    ("quant", POINTER(QuantMeta)),
    ("ext", POINTER(ExtHeader)),
]


# --- dlpack.h --------------------------------------------------------------


class DLPackVersion(Structure):
    """frugal_dlpack_version (DLPackVersion)."""

    _fields_ = [("major", c_uint32), ("minor", c_uint32)]


class DLPackDevice(Structure):
    """frugal_dlpack_device (DLDevice)."""

    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLPackDType(Structure):
    """frugal_dlpack_dtype (DLDataType)."""

    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLPackTensor(Structure):
    """frugal_dlpack_tensor (DLTensor)."""

    _fields_ = [
        ("data", c_void_p),
        ("device", DLPackDevice),
        ("ndim", c_int32),
        ("dtype", DLPackDType),
        ("shape", POINTER(c_int64)),
        ("strides", POINTER(c_int64)),
        ("byte_offset", c_uint64),
    ]


class DLPackManagedTensor(Structure):
    """frugal_dlpack_managed_tensor (legacy DLManagedTensor)."""


#: void (*deleter)(frugal_dlpack_managed_tensor* self)
DLPackDeleter = CFUNCTYPE(None, POINTER(DLPackManagedTensor))

DLPackManagedTensor._fields_ = [
    ("dl_tensor", DLPackTensor),
    ("manager_ctx", c_void_p),
    ("deleter", DLPackDeleter),
]


class DLPackManagedTensorVersioned(Structure):
    """frugal_dlpack_managed_tensor_versioned (DLManagedTensorVersioned)."""


#: void (*deleter)(frugal_dlpack_managed_tensor_versioned* self)
DLPackVersionedDeleter = CFUNCTYPE(None, POINTER(DLPackManagedTensorVersioned))

DLPackManagedTensorVersioned._fields_ = [
    ("version", DLPackVersion),
    ("manager_ctx", c_void_p),
    ("deleter", DLPackVersionedDeleter),
    ("flags", c_uint64),
    ("dl_tensor", DLPackTensor),
]


# --- context.h -------------------------------------------------------------

#: void (*frugal_log_fn)(void* user_data, int32_t level, const char* source, const char* message)
LogFn = CFUNCTYPE(None, c_void_p, c_int32, c_char_p, c_char_p)


class PluginInfo(Structure):
    """frugal_plugin_info."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("name", c_char_p),
        ("version", c_char_p),
        ("vendor", c_char_p),
        ("license", c_char_p),
        ("description", c_char_p),
        ("path", c_char_p),
        ("abi_major", c_uint32),
        ("abi_minor", c_uint32),
        ("strategy_count", c_size_t),
    ]


class StrategyInfo(Structure):
    """frugal_strategy_info."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("kind", c_int32),
        ("flags", c_uint32),
        ("name", c_char_p),
        ("summary", c_char_p),
        ("plugin_name", c_char_p),
        ("shadowed", c_int32),
        ("reserved", c_int32),
        ("option_count", c_size_t),
    ]


class OptionInfo(Structure):
    """frugal_option_info."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("name", c_char_p),
        ("type", c_int32),
        ("flags", c_uint32),
        ("default_value", c_char_p),
        ("min", c_double),
        ("max", c_double),
        ("choices", c_char_p),
        ("doc", c_char_p),
    ]


class LoadFailureInfo(Structure):
    """frugal_load_failure_info."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("path", c_char_p),
        ("message", c_char_p),
        ("code", c_int32),
        ("reserved", c_int32),
    ]


# --- packer.h --------------------------------------------------------------


class PackStats(Structure):
    """frugal_pack_stats."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("packs", c_int64),
        ("units", c_int64),
        ("sequences", c_int64),
        ("real_tokens", c_int64),
        ("max_len", c_int64),
        ("lower_bound", c_int64),
        ("lower_bound_tight", c_int64),
        ("efficiency", c_double),
        ("padding_before", c_double),
        ("padding_after", c_double),
        ("speedup", c_double),
        ("truncated_sequences", c_int64),
        ("truncated_tokens", c_int64),
        ("split_sequences", c_int64),
        ("method", c_char_p),
    ]


class PackPlanView(Structure):
    """frugal_pack_plan_view."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("pack_count", c_size_t),
        ("unit_count", c_size_t),
        ("pack_offsets", POINTER(c_int64)),
        ("sequence_ids", POINTER(c_int64)),
        ("token_offsets", POINTER(c_int64)),
        ("unit_lengths", POINTER(c_int64)),
        ("pack_tokens", POINTER(c_int64)),
    ]


class PackGatherArgs(Structure):
    """frugal_pack_gather_args."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("tokens", POINTER(c_int64)),
        ("sequence_offsets", POINTER(c_int64)),
        ("sequence_count", c_size_t),
        ("labels", POINTER(c_int64)),
        ("out_tokens", POINTER(c_int64)),
        ("out_labels", POINTER(c_int64)),
        ("out_length", c_size_t),
        ("pad_token", c_int64),
        ("ignore_index", c_int64),
        ("mask_first_label", c_int32),
    ]


# --- quantizer_vtable.h ----------------------------------------------------


class QuantLayout(Structure):
    """frugal_quant_layout."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("dtype", c_int32),
        ("scaling_mode", c_int32),
        ("block_rows", c_int32),
        ("block_cols", c_int32),
        ("scale_dtype", c_int32),
        ("flags", c_uint32),
    ]


class QuantZeroPointExt(Structure):
    """frugal_quant_zero_point_ext."""

    _fields_ = [("header", ExtHeader), ("zero_point", POINTER(FrugalTensor))]


class QuantizeArgs(Structure):
    """frugal_quantize_args."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("input", POINTER(FrugalTensor)),
        ("output", POINTER(FrugalTensor)),
        ("output_t", POINTER(FrugalTensor)),
        ("fake", POINTER(FrugalTensor)),
        ("stream", c_void_p),
        ("flags", c_uint32),
        ("reserved", c_uint32),
    ]


class DequantizeArgs(Structure):
    """frugal_dequantize_args: output = input * scale_inv."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("input", POINTER(FrugalTensor)),
        ("output", POINTER(FrugalTensor)),
        ("stream", c_void_p),
    ]


class QuantGemmArgs(Structure):
    """frugal_quant_gemm_args: D = alpha * A * B^T over per-tensor FP8 operands."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("a", POINTER(FrugalTensor)),
        ("b", POINTER(FrugalTensor)),
        ("d", POINTER(FrugalTensor)),
        ("stream", c_void_p),
        ("alpha", c_float),
        ("flags", c_uint32),
    ]


# --- loss_scaler.h -----------------------------------------------------------


class LossScalerStatus(Structure):
    """frugal_loss_scaler_status."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("scale", c_double),
        ("clean_steps", c_int64),
        ("skipped_steps", c_int64),
    ]


# --- router_vtable.h and router.h -------------------------------------------


class RouterLayout(Structure):
    """frugal_route_layout."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("choice", c_int32),
        ("experts", c_int32),
        ("top_k", c_int32),
        ("drop_policy", c_int32),
        ("capacity_factor", c_double),
        ("flags", c_uint32),
        ("reserved", c_uint32),
        # ABI 2.4: expert parallelism (a 2.3 library fills up to `reserved` and leaves these 0).
        ("ep_rank", c_int32),
        ("ep_ranks", c_int32),
    ]


#: The plan's tensor members, in header order (ep_tokens and ep_rows appended in ABI 2.4).
ROUTE_PLAN_FIELDS = (
    "expert_ids",
    "weights",
    "dropped",
    "slot_row",
    "expert_offsets",
    "expert_demand",
    "row_token",
    "row_weight",
    "token_offsets",
    "token_rows",
    "mean_prob",
    "losses",
    "ep_tokens",
    "ep_rows",
)


class RoutePlan(Structure):
    """frugal_route_plan."""

    _fields_ = [("struct_size", c_size_t)] + [(name, POINTER(FrugalTensor)) for name in ROUTE_PLAN_FIELDS]


class RouteArgs(Structure):
    """frugal_route_args."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("logits", POINTER(FrugalTensor)),
        ("plan", POINTER(RoutePlan)),
        ("stream", c_void_p),
    ]


class RouteMoveArgs(Structure):
    """frugal_route_move_args."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("plan", POINTER(RoutePlan)),
        ("input", POINTER(FrugalTensor)),
        ("output", POINTER(FrugalTensor)),
        ("stream", c_void_p),
    ]


class RouteShape(Structure):
    """frugal_route_shape."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("tokens", c_int64),
        ("capacity", c_int64),
        ("max_rows", c_int64),
    ]


class RouteStats(Structure):
    """frugal_route_stats."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("tokens", c_int64),
        ("assignments", c_int64),
        ("kept", c_int64),
        ("dropped", c_int64),
        ("max_load", c_int64),
        ("max_over_mean", c_double),
        ("dropped_fraction", c_double),
        ("aux_loss", c_float),
        ("z_loss", c_float),
    ]


class RouteEpShape(Structure):
    """frugal_route_ep_shape (ABI 2.4)."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("rank", c_int32),
        ("ranks", c_int32),
        ("first_expert", c_int32),
        ("local_experts", c_int32),
        ("group_tokens", c_int64),
        ("token_offset", c_int64),
        ("sent_rows", c_int64),
        ("received_rows", c_int64),
    ]


class RouteDispatchArgs(Structure):
    """frugal_route_dispatch_args (ABI 2.4)."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("plan", POINTER(RoutePlan)),
        ("input", POINTER(FrugalTensor)),
        ("output", POINTER(FrugalTensor)),
        ("expert_offsets", POINTER(FrugalTensor)),
        ("row_token", POINTER(FrugalTensor)),
        ("stream", c_void_p),
    ]


# --- telemetry.h and scheduler.h --------------------------------------------


class Telemetry(Structure):
    """frugal_telemetry."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("flags", c_uint32),
        ("nodes", c_uint32),
        ("step", c_int64),
        ("tokens", c_int64),
        ("loss", c_double),
        ("eval_loss", c_double),
        ("wall_time_s", c_double),
        ("price_per_node_hour", c_double),
        ("resource", c_int32),
        ("checkpoint_done", c_int32),
        ("checkpoint_stall_s", c_double),
        ("preemption_notice_s", c_double),
    ]


class Decision(Structure):
    """frugal_decision."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("lr", c_double),
        ("checkpoint", c_int32),
        ("resource", c_int32),
        ("target_nodes", c_uint32),
        ("stop", c_int32),
        ("next_due_s", c_double),
        ("reason", c_char_p),
    ]


class SchedulerConfig(Structure):
    """frugal_scheduler_config."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("schedule", c_char_p),
        ("schedule_options", c_void_p),
        ("policies", POINTER(c_char_p)),
        ("policy_options", POINTER(c_void_p)),
        ("policy_count", c_size_t),
        ("gpus_per_node", c_uint32),
        ("reserved0", c_uint32),
        # ABI 2.4: the job's ranks (frugal_comm*), NULL for one process.
        ("comm", c_void_p),
    ]


class CostLedger(Structure):
    """frugal_cost_ledger."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("dollars", c_double),
        ("spot_dollars", c_double),
        ("reserved_dollars", c_double),
        ("productive_dollars", c_double),
        ("stall_dollars", c_double),
        ("lost_dollars", c_double),
        ("gpu_hours", c_double),
        ("wall_s", c_double),
        ("productive_s", c_double),
        ("stall_s", c_double),
        ("lost_s", c_double),
        ("restarts", c_int64),
        ("checkpoints_full", c_int64),
        ("checkpoints_heartbeat", c_int64),
        ("loss_first", c_double),
        ("loss_best", c_double),
        ("dollars_per_loss", c_double),
    ]


# --- store_vtable.h --------------------------------------------------------

#: int32_t (*frugal_store_list_fn)(void* user_data, const char* key, uint64_t size)
StoreListFn = CFUNCTYPE(c_int32, c_void_p, c_char_p, c_uint64)


# --- checkpoint.h ----------------------------------------------------------


class CkptSaveArgs(Structure):
    """frugal_ckpt_save_args."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("kind", c_int32),
        ("flags", c_uint32),
        ("step", c_uint64),
        ("metadata", c_void_p),
        ("metadata_size", c_size_t),
    ]


class CkptSaveResult(Structure):
    """frugal_ckpt_save_result."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("name", c_char * CKPT_NAME_CAPACITY),
        ("skipped", c_int32),
        ("reserved", c_int32),
        ("bytes", c_size_t),
        ("wait_seconds", c_double),
        ("snapshot_seconds", c_double),
    ]


class CkptPersistResult(Structure):
    """frugal_ckpt_persist_result."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("name", c_char * CKPT_NAME_CAPACITY),
        ("bytes", c_uint64),
        ("persist_seconds", c_double),
    ]


class CkptSlice(Structure):
    """frugal_ckpt_slice (ABI 2.2): the box of a global tensor one rank holds; copied during the call."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("ndim", c_int32),
        ("replicated", c_int32),
        ("global_shape", POINTER(c_int64)),
        ("offsets", POINTER(c_int64)),
    ]


class CkptInfo(Structure):
    """frugal_ckpt_info."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("name", c_char * CKPT_NAME_CAPACITY),
        ("kind", c_int32),
        ("status", c_int32),
        ("step", c_uint64),
        ("sequence", c_uint64),
        ("created_unix_ns", c_int64),
        ("bytes", c_uint64),
        ("tensor_count", c_uint32),
        ("state_count", c_uint32),
        ("emergency", c_int32),
        ("reason", c_char * CKPT_REASON_CAPACITY),
        # Written by frugal_ckpt_restore only.
        ("full_source", c_char * CKPT_NAME_CAPACITY),
        ("not_restored_count", c_uint32),
        # ABI 2.3: written by every call that fills an info (a 2.2 library leaves them 0).
        ("world_size", c_uint32),
        ("reserved", c_uint32),
    ]


#: int32_t (*frugal_ckpt_list_fn)(void* user_data, const frugal_ckpt_info* info)
CkptListFn = CFUNCTYPE(c_int32, c_void_p, POINTER(CkptInfo))


#: frugal_error* (*export_state)(void* user_data, void* buffer, size_t capacity, size_t* size)
CkptExportStateFn = CFUNCTYPE(c_void_p, c_void_p, c_void_p, c_size_t, POINTER(c_size_t))
#: frugal_error* (*import_state)(void* user_data, const void* data, size_t size)
CkptImportStateFn = CFUNCTYPE(c_void_p, c_void_p, c_void_p, c_size_t)

#: FRUGAL_CKPT_STATE_MAX_SIZE: the most bytes one registered state may export.
CKPT_STATE_MAX_SIZE = 256 << 20


class CkptStateFns(Structure):
    """frugal_ckpt_state_fns."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("user_data", c_void_p),
        ("export_state", CkptExportStateFn),
        ("import_state", CkptImportStateFn),
    ]


class CkptEmergencyResult(Structure):
    """frugal_ckpt_emergency_result."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("name", c_char * CKPT_NAME_CAPACITY),
        ("committed", c_int32),
        ("reserved", c_int32),
        ("seconds", c_double),
    ]


#: void (*frugal_release_fn)(void* user_data), from managed_tensor.h.
ReleaseFn = CFUNCTYPE(None, c_void_p)

#: Every mirrored struct with its C name, for the layout test.
C_STRUCTS = {
    "frugal_ext_header": ExtHeader,
    "frugal_device": Device,
    "frugal_quant_meta": QuantMeta,
    "frugal_tensor": FrugalTensor,
    "frugal_dlpack_version": DLPackVersion,
    "frugal_dlpack_device": DLPackDevice,
    "frugal_dlpack_dtype": DLPackDType,
    "frugal_dlpack_tensor": DLPackTensor,
    "frugal_dlpack_managed_tensor": DLPackManagedTensor,
    "frugal_dlpack_managed_tensor_versioned": DLPackManagedTensorVersioned,
    "frugal_plugin_info": PluginInfo,
    "frugal_strategy_info": StrategyInfo,
    "frugal_option_info": OptionInfo,
    "frugal_load_failure_info": LoadFailureInfo,
    "frugal_pack_stats": PackStats,
    "frugal_pack_plan_view": PackPlanView,
    "frugal_pack_gather_args": PackGatherArgs,
    "frugal_quant_layout": QuantLayout,
    "frugal_quant_zero_point_ext": QuantZeroPointExt,
    "frugal_quantize_args": QuantizeArgs,
    "frugal_dequantize_args": DequantizeArgs,
    "frugal_quant_gemm_args": QuantGemmArgs,
    "frugal_loss_scaler_status": LossScalerStatus,
    "frugal_route_layout": RouterLayout,
    "frugal_route_plan": RoutePlan,
    "frugal_route_args": RouteArgs,
    "frugal_route_move_args": RouteMoveArgs,
    "frugal_route_shape": RouteShape,
    "frugal_route_stats": RouteStats,
    "frugal_route_ep_shape": RouteEpShape,
    "frugal_route_dispatch_args": RouteDispatchArgs,
    "frugal_telemetry": Telemetry,
    "frugal_decision": Decision,
    "frugal_scheduler_config": SchedulerConfig,
    "frugal_cost_ledger": CostLedger,
    "frugal_ckpt_save_args": CkptSaveArgs,
    "frugal_ckpt_save_result": CkptSaveResult,
    "frugal_ckpt_persist_result": CkptPersistResult,
    "frugal_ckpt_slice": CkptSlice,
    "frugal_ckpt_info": CkptInfo,
    "frugal_ckpt_emergency_result": CkptEmergencyResult,
    "frugal_ckpt_state_fns": CkptStateFns,
}
