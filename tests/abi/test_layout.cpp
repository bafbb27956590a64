// ABI layout: the C and C++ compilers agree on every size and offset, the
// values are the pinned LP64 ones, and DLPack structs sit where the DLPack
// spec puts them. Moving any field fails this test (and the header asserts).
#include <catch2/catch.hpp>

#include <cstddef>
#include <map>
#include <string>

#include "frugal/frugal.h"
#include "frugal/packer_vtable.h"
#include "frugal/plugin.h"
#include "frugal/policy_vtable.h"
#include "frugal/quantizer_vtable.h"
#include "frugal/router_vtable.h"
#include "frugal/schedule_vtable.h"
#include "frugal/store_vtable.h"
#include "layout_probe.h"

namespace {

#define FRUGAL_STRUCT(type) {#type, "", sizeof(type)},
#define FRUGAL_FIELD(type, field) {#type, #field, offsetof(type, field)},
const frugal_layout_row kCxxRows[] = {
#include "layout_fields.def"
};
#undef FRUGAL_STRUCT
#undef FRUGAL_FIELD

std::map<std::string, size_t> as_map(const frugal_layout_row* rows, size_t count) {
  std::map<std::string, size_t> map;
  for (size_t i = 0; i < count; ++i) map[std::string(rows[i].type) + "." + rows[i].field] = rows[i].value;
  return map;
}

}  // namespace

TEST_CASE("C99 and C++ see the same layout for every ABI struct") {
  size_t count = 0;
  const frugal_layout_row* c_rows = frugal_c_layout(&count);
  REQUIRE(count == sizeof(kCxxRows) / sizeof(kCxxRows[0]));
  for (size_t i = 0; i < count; ++i) {
    INFO(c_rows[i].type << "." << c_rows[i].field);
    CHECK(std::string(c_rows[i].type) == kCxxRows[i].type);
    CHECK(c_rows[i].value == kCxxRows[i].value);
  }
}

TEST_CASE("the pinned LP64 layout") {
  REQUIRE(sizeof(void*) == 8);
  size_t count = 0;
  const frugal_layout_row* rows = frugal_c_layout(&count);  // sets count: keep it a separate statement
  const auto layout = as_map(rows, count);
  // Sizes of every crossing struct.
  const std::map<std::string, size_t> sizes = {{"frugal_ext_header.", 24},
                                               {"frugal_device.", 8},
                                               {"frugal_quant_meta.", 56},
                                               {"frugal_tensor.", 72},
                                               {"frugal_dlpack_version.", 8},
                                               {"frugal_dlpack_device.", 8},
                                               {"frugal_dlpack_dtype.", 4},
                                               {"frugal_dlpack_tensor.", 48},
                                               {"frugal_dlpack_managed_tensor.", 64},
                                               {"frugal_dlpack_managed_tensor_versioned.", 80},
                                               {"frugal_host_api.", 136},
                                               {"frugal_strategy_desc.", 48},
                                               {"frugal_plugin_desc.", 88},
                                               {"frugal_schedule_vtable.", 32},
                                               {"frugal_plugin_info.", 72},
                                               {"frugal_strategy_info.", 56},
                                               {"frugal_option_info.", 64},
                                               {"frugal_option_decl.", 64},
                                               {"frugal_strategy_options_ext.", 40},
                                               {"frugal_load_failure_info.", 32},
                                               {"frugal_store_vtable.", 64},
                                               {"frugal_ckpt_save_args.", 40},
                                               {"frugal_ckpt_save_result.", 104},
                                               {"frugal_ckpt_persist_result.", 88},
                                               {"frugal_ckpt_info.", 456},
                                               {"frugal_ckpt_emergency_result.", 88},
                                               {"frugal_ckpt_state_fns.", 32},
                                               {"frugal_quant_layout.", 32},
                                               {"frugal_quant_zero_point_ext.", 32},
                                               {"frugal_quantize_args.", 56},
                                               {"frugal_dequantize_args.", 32},
                                               {"frugal_quant_gemm_args.", 48},
                                               {"frugal_quantize_call.", 56},
                                               {"frugal_dequantize_call.", 32},
                                               {"frugal_quant_gemm_call.", 48},
                                               {"frugal_quantizer_vtable.", 72},
                                               {"frugal_loss_scaler_status.", 32},
                                               {"frugal_route_layout.", 48},
                                               {"frugal_route_plan.", 120},
                                               {"frugal_route_args.", 32},
                                               {"frugal_route_move_args.", 40},
                                               {"frugal_route_call.", 32},
                                               {"frugal_route_move_call.", 40},
                                               {"frugal_router_update_call.", 16},
                                               {"frugal_router_vtable.", 96},
                                               {"frugal_route_dispatch_call.", 56},
                                               {"frugal_route_ep_shape.", 56},
                                               {"frugal_route_dispatch_args.", 56},
                                               {"frugal_route_shape.", 32},
                                               {"frugal_route_stats.", 72},
                                               {"frugal_telemetry.", 88},
                                               {"frugal_decision.", 48},
                                               {"frugal_policy_vtable.", 48},
                                               {"frugal_scheduler_config.", 64},
                                               {"frugal_cost_ledger.", 144},
                                               {"frugal_comm_info.", 24},
                                               {"frugal_comm_call.", 96},
                                               {"frugal_comm_vtable.", 48},
                                               {"frugal_ckpt_slice.", 32}};
  for (const auto& [name, size] : sizes) {
    INFO(name);
    CHECK(layout.at(name) == size);
  }
  // Every struct that crosses starts with struct_size, except DLPack's (spec-defined) and plain values.
  for (const char* type : {"frugal_ext_header",
                           "frugal_quant_meta",
                           "frugal_tensor",
                           "frugal_host_api",
                           "frugal_strategy_desc",
                           "frugal_plugin_desc",
                           "frugal_schedule_vtable",
                           "frugal_plugin_info",
                           "frugal_strategy_info",
                           "frugal_load_failure_info",
                           "frugal_store_vtable",
                           "frugal_ckpt_save_args",
                           "frugal_ckpt_save_result",
                           "frugal_ckpt_persist_result",
                           "frugal_ckpt_info",
                           "frugal_ckpt_emergency_result",
                           "frugal_ckpt_state_fns",
                           "frugal_quant_layout",
                           "frugal_quantize_args",
                           "frugal_dequantize_args",
                           "frugal_quant_gemm_args",
                           "frugal_quantize_call",
                           "frugal_dequantize_call",
                           "frugal_quant_gemm_call",
                           "frugal_quantizer_vtable",
                           "frugal_loss_scaler_status",
                           "frugal_route_layout",
                           "frugal_route_plan",
                           "frugal_route_args",
                           "frugal_route_move_args",
                           "frugal_route_call",
                           "frugal_route_move_call",
                           "frugal_router_update_call",
                           "frugal_router_vtable",
                           "frugal_route_shape",
                           "frugal_route_stats",
                           "frugal_telemetry",
                           "frugal_decision",
                           "frugal_policy_vtable",
                           "frugal_scheduler_config",
                           "frugal_cost_ledger",
                           "frugal_option_info",
                           "frugal_option_decl",
                           "frugal_comm_info",
                           "frugal_comm_call",
                           "frugal_comm_vtable",
                           "frugal_ckpt_slice"}) {
    INFO(type);
    CHECK(layout.at(std::string(type) + ".struct_size") == 0);
  }
  // DLPack 1.x spec offsets (DLTensor, DLManagedTensor, DLManagedTensorVersioned).
  CHECK(layout.at("frugal_dlpack_tensor.device") == 8);
  CHECK(layout.at("frugal_dlpack_tensor.ndim") == 16);
  CHECK(layout.at("frugal_dlpack_tensor.dtype") == 20);
  CHECK(layout.at("frugal_dlpack_tensor.shape") == 24);
  CHECK(layout.at("frugal_dlpack_tensor.strides") == 32);
  CHECK(layout.at("frugal_dlpack_tensor.byte_offset") == 40);
  CHECK(layout.at("frugal_dlpack_dtype.bits") == 1);
  CHECK(layout.at("frugal_dlpack_dtype.lanes") == 2);
  CHECK(layout.at("frugal_dlpack_managed_tensor.manager_ctx") == 48);
  CHECK(layout.at("frugal_dlpack_managed_tensor.deleter") == 56);
  CHECK(layout.at("frugal_dlpack_managed_tensor_versioned.manager_ctx") == 8);
  CHECK(layout.at("frugal_dlpack_managed_tensor_versioned.deleter") == 16);
  CHECK(layout.at("frugal_dlpack_managed_tensor_versioned.flags") == 24);
  CHECK(layout.at("frugal_dlpack_managed_tensor_versioned.dl_tensor") == 32);
  // Host table slots: append-only, so their offsets never change.
  CHECK(layout.at("frugal_host_api.log") == 24);
  CHECK(layout.at("frugal_host_api.error_create") == 48);
  CHECK(layout.at("frugal_host_api.option_type") == 96);
  CHECK(layout.at("frugal_host_api.error_destroy") == 104);
  CHECK(FRUGAL_HOST_API_V2_0_SIZE == 112);
  CHECK(layout.at("frugal_host_api.option_get_comm") == 112);  // ABI 2.1 slots
  CHECK(layout.at("frugal_host_api.comm_run") == 128);
  CHECK(FRUGAL_HOST_API_V2_1_SIZE == 136);
  CHECK(layout.at("frugal_comm_call.timeout_ms") == 88);
  CHECK(FRUGAL_COMM_CALL_MIN_SIZE == 96);
  CHECK(layout.at("frugal_ckpt_slice.ndim") == 8);  // ABI 2.2
  CHECK(layout.at("frugal_ckpt_slice.replicated") == 12);
  CHECK(layout.at("frugal_ckpt_slice.global_shape") == 16);
  CHECK(layout.at("frugal_ckpt_slice.offsets") == 24);
  CHECK(FRUGAL_CKPT_SLICE_MIN_SIZE == 32);
  CHECK(layout.at("frugal_ckpt_info.not_restored_count") == 444);  // an info of ABI <= 2.2 ends after it
  CHECK(layout.at("frugal_ckpt_info.world_size") == 448);          // ABI 2.3
  CHECK(layout.at("frugal_scheduler_config.reserved0") == 52);     // a config of ABI <= 2.3 ends after it
  CHECK(layout.at("frugal_scheduler_config.comm") == 56);          // ABI 2.4
  CHECK(layout.at("frugal_plugin_desc.strategies") == 56);
  CHECK(FRUGAL_PLUGIN_DESC_MIN_SIZE == 64);
  CHECK(FRUGAL_STRATEGY_DESC_MIN_SIZE == 40);
  CHECK(FRUGAL_SCHEDULE_VTABLE_MIN_SIZE == 32);
}

TEST_CASE("version macros and the runtime query agree") {
  CHECK(frugal_abi_version() == FRUGAL_ABI_VERSION);
  CHECK(FRUGAL_ABI_VERSION_GET_MAJOR(frugal_abi_version()) == FRUGAL_ABI_VERSION_MAJOR);
  CHECK(FRUGAL_ABI_VERSION_GET_MINOR(frugal_abi_version()) == FRUGAL_ABI_VERSION_MINOR);
  CHECK(std::string(frugal_version_string()) == FRUGAL_VERSION_STRING);
  CHECK(std::string(frugal_strategy_kind_name(FRUGAL_KIND_SCHEDULE)) == "schedule");
  CHECK(std::string(frugal_strategy_kind_name(FRUGAL_KIND_STORE)) == "store");
  CHECK(std::string(frugal_strategy_kind_name(0)) == "unknown");
}
