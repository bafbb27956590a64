"""The C signature of every libfrugal function this package calls.

One table, mirroring the headers' declarations: name -> (restype, argtypes).
``frugal_error*`` results are ``c_void_p`` (an address, 0 on success) so
that :func:`frugal.errors.check` can read and destroy the error object.
Opaque handles are ``c_void_p`` too.

GIL_HELD lists the functions that may run a DLPack producer's deleter (for
example numpy's, which touches Python objects): they are called through a
ctypes.PyDLL view of the library, which keeps the GIL during the call.
Every other function releases the GIL (ctypes.CDLL), so long calls
(checkpoint saves, routing) let other Python threads run.
"""

from ctypes import POINTER, c_char_p, c_double, c_int32, c_int64, c_size_t, c_uint8, c_uint32, c_uint64, c_void_p

from . import _types as t

_ERR = c_void_p  # frugal_error*
_H = c_void_p  # an opaque handle
_TENSOR = POINTER(t.FrugalTensor)

SIGNATURES = {
    # error.h
    "frugal_error_create": (_ERR, [c_int32, c_char_p]),
    "frugal_error_code": (c_int32, [_ERR]),
    "frugal_error_message": (c_char_p, [_ERR]),
    "frugal_error_code_name": (c_char_p, [c_int32]),
    "frugal_error_destroy": (None, [_ERR]),
    # context.h
    "frugal_abi_version": (c_uint32, []),
    "frugal_version_string": (c_char_p, []),
    "frugal_cuda_device_count": (c_int32, []),
    "frugal_built_with_cuda": (c_int32, []),
    "frugal_context_create": (_ERR, [POINTER(_H)]),
    "frugal_context_destroy": (None, [_H]),
    "frugal_context_set_log_callback": (_ERR, [_H, t.LogFn, c_void_p, c_int32]),
    "frugal_context_add_plugin_dir": (_ERR, [_H, c_char_p]),
    "frugal_context_discover_plugins": (_ERR, [_H, c_uint32, POINTER(c_size_t)]),
    "frugal_context_load_plugin": (_ERR, [_H, c_char_p]),
    "frugal_context_plugin_count": (c_size_t, [_H]),
    "frugal_context_plugin_info": (_ERR, [_H, c_size_t, POINTER(t.PluginInfo)]),
    "frugal_context_strategy_info": (_ERR, [_H, c_size_t, c_size_t, POINTER(t.StrategyInfo)]),
    "frugal_context_strategy_option": (_ERR, [_H, c_size_t, c_size_t, c_size_t, POINTER(t.OptionInfo)]),
    "frugal_context_load_failure_count": (c_size_t, [_H]),
    "frugal_context_load_failure": (_ERR, [_H, c_size_t, POINTER(t.LoadFailureInfo)]),
    "frugal_context_find_strategy": (_ERR, [_H, c_int32, c_char_p, POINTER(t.StrategyInfo)]),
    "frugal_strategy_kind_name": (c_char_p, [c_int32]),
    # options.h
    "frugal_options_create": (_ERR, [POINTER(_H)]),
    "frugal_options_destroy": (None, [_H]),
    "frugal_options_set_int": (_ERR, [_H, c_char_p, c_int64]),
    "frugal_options_set_double": (_ERR, [_H, c_char_p, c_double]),
    "frugal_options_set_bool": (_ERR, [_H, c_char_p, c_int32]),
    "frugal_options_set_string": (_ERR, [_H, c_char_p, c_char_p]),
    "frugal_options_set_parsed": (_ERR, [_H, c_char_p, c_char_p]),
    "frugal_options_set_comm": (_ERR, [_H, c_char_p, _H]),
    "frugal_options_get_comm": (_ERR, [_H, c_char_p, POINTER(_H)]),
    # Communicators (frugal/comm.h, ABI 2.1); the collectives release the GIL.
    "frugal_comm_create": (_ERR, [_H, c_char_p, _H, POINTER(_H)]),
    "frugal_comm_destroy": (None, [_H]),
    "frugal_comm_rank": (c_int32, [_H]),
    "frugal_comm_size": (c_int32, [_H]),
    "frugal_comm_device_type": (c_int32, [_H]),
    "frugal_comm_split": (_ERR, [_H, c_int32, c_int32, POINTER(_H)]),
    "frugal_comm_set_timeout": (_ERR, [_H, c_int64]),
    "frugal_comm_set_stream": (_ERR, [_H, c_void_p]),
    "frugal_comm_all_reduce": (_ERR, [_H, _TENSOR, _TENSOR, c_int32]),
    "frugal_comm_broadcast": (_ERR, [_H, _TENSOR, c_int32]),
    "frugal_comm_all_gather": (_ERR, [_H, _TENSOR, _TENSOR]),
    "frugal_comm_all_gather_v": (_ERR, [_H, _TENSOR, _TENSOR, POINTER(c_size_t), POINTER(c_size_t)]),
    "frugal_comm_reduce_scatter": (_ERR, [_H, _TENSOR, _TENSOR, c_int32]),
    "frugal_comm_all_to_all": (_ERR, [_H, _TENSOR, _TENSOR]),
    "frugal_comm_all_to_all_v": (_ERR, [_H, _TENSOR, POINTER(c_size_t), POINTER(c_size_t), _TENSOR,
                                        POINTER(c_size_t), POINTER(c_size_t)]),
    "frugal_comm_barrier": (_ERR, [_H]),
    "frugal_options_type": (c_int32, [_H, c_char_p]),
    "frugal_options_count": (c_size_t, [_H]),
    "frugal_options_entry": (_ERR, [_H, c_size_t, POINTER(c_char_p), POINTER(c_int32)]),
    "frugal_options_get_int": (_ERR, [_H, c_char_p, c_int64, POINTER(c_int64)]),
    "frugal_options_get_double": (_ERR, [_H, c_char_p, c_double, POINTER(c_double)]),
    "frugal_options_get_bool": (_ERR, [_H, c_char_p, c_int32, POINTER(c_int32)]),
    "frugal_options_get_string": (_ERR, [_H, c_char_p, c_char_p, POINTER(c_char_p)]),
    # managed_tensor.h
    "frugal_dtype_bits": (c_int32, [c_int32]),
    "frugal_dtype_name": (c_char_p, [c_int32]),
    "frugal_tensor_validate": (_ERR, [_TENSOR]),
    "frugal_managed_tensor_alloc": (_ERR, [c_int32, c_int32, POINTER(c_int64), POINTER(_H)]),
    "frugal_managed_tensor_wrap": (_ERR, [_TENSOR, t.ReleaseFn, c_void_p, POINTER(_H)]),
    "frugal_managed_tensor_view": (_TENSOR, [_H]),
    "frugal_managed_tensor_destroy": (None, [_H]),
    "frugal_managed_tensor_from_dlpack_versioned": (_ERR, [c_void_p, POINTER(_H)]),
    "frugal_managed_tensor_from_dlpack": (_ERR, [c_void_p, POINTER(_H)]),
    "frugal_managed_tensor_to_dlpack_versioned": (_ERR, [_H, POINTER(c_void_p)]),
    "frugal_managed_tensor_to_dlpack": (_ERR, [_H, POINTER(c_void_p)]),
    "frugal_managed_tensor_is_read_only": (c_int32, [_H]),
    # schedule.h
    "frugal_schedule_create": (_ERR, [_H, c_char_p, _H, POINTER(_H)]),
    "frugal_schedule_lr": (_ERR, [_H, c_int64, POINTER(c_double)]),
    "frugal_schedule_destroy": (None, [_H]),
    # packer.h
    "frugal_packer_create": (_ERR, [_H, c_char_p, _H, POINTER(_H)]),
    "frugal_packer_pack": (_ERR, [_H, POINTER(c_int64), c_size_t, POINTER(_H)]),
    "frugal_packer_pack_histogram": (_ERR, [_H, POINTER(c_int64), POINTER(c_int64), c_size_t, POINTER(_H)]),
    "frugal_packer_destroy": (None, [_H]),
    "frugal_pack_plan_stats": (_ERR, [_H, POINTER(t.PackStats)]),
    "frugal_pack_plan_view_get": (_ERR, [_H, POINTER(t.PackPlanView)]),
    "frugal_pack_plan_varlen": (
        _ERR,
        [_H, c_size_t, POINTER(c_int32), c_size_t, POINTER(c_size_t), POINTER(c_int32)],
    ),
    "frugal_pack_plan_position_ids": (_ERR, [_H, c_size_t, POINTER(c_int64), c_size_t]),
    "frugal_pack_plan_segment_ids": (_ERR, [_H, c_size_t, POINTER(c_int32), c_size_t]),
    "frugal_pack_plan_mask": (_ERR, [_H, c_size_t, POINTER(c_uint8), c_size_t]),
    "frugal_pack_plan_gather": (_ERR, [_H, c_size_t, POINTER(t.PackGatherArgs)]),
    "frugal_pack_plan_destroy": (None, [_H]),
    "frugal_pack_stream_create": (_ERR, [_H, _H, POINTER(_H)]),
    "frugal_pack_stream_push": (_ERR, [_H, c_int64, c_int64]),
    "frugal_pack_stream_flush": (_ERR, [_H]),
    "frugal_pack_stream_pop": (_ERR, [_H, POINTER(_H)]),
    "frugal_pack_stream_pending": (_ERR, [_H, POINTER(c_size_t), POINTER(c_size_t)]),
    "frugal_pack_stream_destroy": (None, [_H]),
    # quantizer.h
    "frugal_quantizer_create": (_ERR, [_H, c_char_p, _H, POINTER(_H)]),
    "frugal_quantizer_layout": (_ERR, [_H, POINTER(t.QuantLayout)]),
    "frugal_quantizer_scale_shape": (_ERR, [_H, c_int64, c_int64, POINTER(c_int64)]),
    "frugal_quantizer_quantize": (_ERR, [_H, POINTER(t.QuantizeArgs)]),
    "frugal_quantizer_dequantize": (_ERR, [_H, POINTER(t.DequantizeArgs)]),
    "frugal_quantizer_gemm": (_ERR, [_H, POINTER(t.QuantGemmArgs)]),
    "frugal_quantizer_export_state": (_ERR, [_H, c_void_p, c_size_t, POINTER(c_size_t)]),
    "frugal_quantizer_import_state": (_ERR, [_H, c_void_p, c_size_t]),
    "frugal_quantizer_destroy": (None, [_H]),
    # loss_scaler.h
    "frugal_loss_scaler_create": (_ERR, [_H, POINTER(_H)]),
    "frugal_loss_scaler_scale": (c_double, [_H]),
    "frugal_loss_scaler_update": (_ERR, [_H, c_int32, POINTER(c_int32)]),
    "frugal_loss_scaler_get_status": (_ERR, [_H, POINTER(t.LossScalerStatus)]),
    "frugal_loss_scaler_set_status": (_ERR, [_H, POINTER(t.LossScalerStatus)]),
    "frugal_loss_scaler_export_state": (_ERR, [_H, c_void_p, c_size_t, POINTER(c_size_t)]),
    "frugal_loss_scaler_import_state": (_ERR, [_H, c_void_p, c_size_t]),
    "frugal_loss_scaler_destroy": (None, [_H]),
    # router.h
    "frugal_router_create": (_ERR, [_H, c_char_p, _H, POINTER(_H)]),
    "frugal_router_layout": (_ERR, [_H, POINTER(t.RouterLayout)]),
    "frugal_router_plan_shape": (_ERR, [_H, c_int64, POINTER(t.RouteShape)]),
    "frugal_router_route": (_ERR, [_H, POINTER(t.RouteArgs)]),
    "frugal_router_permute": (_ERR, [_H, POINTER(t.RouteMoveArgs)]),
    "frugal_router_combine": (_ERR, [_H, POINTER(t.RouteMoveArgs)]),
    "frugal_router_update": (_ERR, [_H, _TENSOR]),
    "frugal_router_stats": (_ERR, [_H, POINTER(t.RoutePlan), POINTER(t.RouteStats)]),
    "frugal_router_export_state": (_ERR, [_H, c_void_p, c_size_t, POINTER(c_size_t)]),
    "frugal_router_import_state": (_ERR, [_H, c_void_p, c_size_t]),
    # Expert parallelism (ABI 2.4); dispatch and combine are collective over the router's ep_comm.
    "frugal_router_ep_shape": (_ERR, [_H, POINTER(t.RoutePlan), POINTER(t.RouteEpShape)]),
    "frugal_router_ep_dispatch": (_ERR, [_H, POINTER(t.RouteDispatchArgs)]),
    "frugal_router_ep_combine": (_ERR, [_H, POINTER(t.RouteMoveArgs)]),
    "frugal_router_destroy": (None, [_H]),
    # scheduler.h
    "frugal_scheduler_create": (_ERR, [_H, POINTER(t.SchedulerConfig), POINTER(_H)]),
    "frugal_scheduler_step": (_ERR, [_H, POINTER(t.Telemetry), POINTER(t.Decision)]),
    "frugal_scheduler_ledger": (_ERR, [_H, POINTER(t.CostLedger)]),
    "frugal_scheduler_export_state": (_ERR, [_H, c_void_p, c_size_t, POINTER(c_size_t)]),
    "frugal_scheduler_import_state": (_ERR, [_H, c_void_p, c_size_t]),
    "frugal_scheduler_destroy": (None, [_H]),
    # store.h
    "frugal_store_create": (_ERR, [_H, c_char_p, _H, POINTER(_H)]),
    "frugal_store_destroy": (None, [_H]),
    "frugal_store_put": (_ERR, [_H, c_char_p, c_void_p, c_size_t]),
    "frugal_store_size": (_ERR, [_H, c_char_p, POINTER(c_uint64)]),
    "frugal_store_read": (_ERR, [_H, c_char_p, c_uint64, c_void_p, c_size_t]),
    "frugal_store_list": (_ERR, [_H, c_char_p, t.StoreListFn, c_void_p]),
    "frugal_store_remove": (_ERR, [_H, c_char_p]),
    "frugal_store_check_key": (_ERR, [c_char_p]),
    # checkpoint.h
    "frugal_ckpt_engine_create": (_ERR, [_H, _H, POINTER(_H)]),
    "frugal_ckpt_engine_destroy": (None, [_H]),
    "frugal_ckpt_register": (_ERR, [_H, c_char_p, _TENSOR, c_uint32]),
    "frugal_ckpt_unregister": (_ERR, [_H, c_char_p]),
    "frugal_ckpt_register_slice": (_ERR, [_H, c_char_p, _TENSOR, POINTER(t.CkptSlice), c_uint32]),
    "frugal_ckpt_register_state": (_ERR, [_H, c_char_p, POINTER(t.CkptStateFns), c_uint32]),
    "frugal_ckpt_register_router": (_ERR, [_H, c_char_p, _H, c_uint32]),
    "frugal_ckpt_register_quantizer": (_ERR, [_H, c_char_p, _H, c_uint32]),
    "frugal_ckpt_register_scheduler": (_ERR, [_H, c_char_p, _H, c_uint32]),
    "frugal_ckpt_register_loss_scaler": (_ERR, [_H, c_char_p, _H, c_uint32]),
    "frugal_ckpt_save": (_ERR, [_H, POINTER(t.CkptSaveArgs), POINTER(t.CkptSaveResult)]),
    "frugal_ckpt_wait": (_ERR, [_H, POINTER(t.CkptPersistResult)]),
    "frugal_ckpt_list": (_ERR, [_H, c_uint32, t.CkptListFn, c_void_p]),
    "frugal_ckpt_verify": (_ERR, [_H, c_char_p, POINTER(t.CkptInfo)]),
    "frugal_ckpt_latest": (_ERR, [_H, c_uint32, POINTER(t.CkptInfo)]),
    "frugal_ckpt_inspect_json": (_ERR, [_H, c_char_p, POINTER(c_void_p)]),
    "frugal_string_free": (None, [c_void_p]),
    "frugal_ckpt_restore": (
        _ERR,
        [_H, c_char_p, c_uint32, c_void_p, c_size_t, POINTER(c_size_t), POINTER(t.CkptInfo)],
    ),
    "frugal_ckpt_restore_report": (_ERR, [_H, c_uint32, c_char_p, c_size_t]),
    "frugal_ckpt_restored_metadata": (_ERR, [_H, c_uint32, c_void_p, c_size_t, POINTER(c_size_t)]),
    "frugal_ckpt_gc": (_ERR, [_H, POINTER(c_uint32)]),
    "frugal_ckpt_emergency_save": (
        _ERR,
        [_H, POINTER(t.CkptSaveArgs), c_double, POINTER(t.CkptEmergencyResult)],
    ),
    "frugal_preemption_install_sigterm": (_ERR, []),
    "frugal_preemption_uninstall_sigterm": (None, []),
    "frugal_preemption_pending": (c_int32, []),
    "frugal_ckpt_preemption_agree": (_ERR, [_H, POINTER(c_int32)]),
    "frugal_preemption_notify": (None, []),
    "frugal_preemption_clear": (None, []),
}

#: Functions that may run a producer's DLPack deleter: called with the GIL held.
GIL_HELD = frozenset(
    {
        "frugal_managed_tensor_destroy",
        "frugal_managed_tensor_from_dlpack",
        "frugal_managed_tensor_from_dlpack_versioned",
    }
)
