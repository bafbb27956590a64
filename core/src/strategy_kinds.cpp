#include "strategy_kinds.hpp"

#include <array>
#include <cstring>

#include "frugal/comm_vtable.h"
#include "frugal/context.h"
#include "frugal/packer_vtable.h"
#include "frugal/policy_vtable.h"
#include "frugal/quantizer_vtable.h"
#include "frugal/router_vtable.h"
#include "frugal/schedule_vtable.h"
#include "frugal/store_vtable.h"

namespace frugal {
namespace {

constexpr std::array kScheduleSlots = {
    VtableSlot{offsetof(frugal_schedule_vtable, create), "create"},
    VtableSlot{offsetof(frugal_schedule_vtable, destroy), "destroy"},
    VtableSlot{offsetof(frugal_schedule_vtable, lr), "lr"},
};

constexpr std::array kStoreSlots = {
    VtableSlot{offsetof(frugal_store_vtable, create), "create"},
    VtableSlot{offsetof(frugal_store_vtable, destroy), "destroy"},
    VtableSlot{offsetof(frugal_store_vtable, put), "put"},
    VtableSlot{offsetof(frugal_store_vtable, size), "size"},
    VtableSlot{offsetof(frugal_store_vtable, read), "read"},
    VtableSlot{offsetof(frugal_store_vtable, list), "list"},
    VtableSlot{offsetof(frugal_store_vtable, remove), "remove"},
};

constexpr std::array kPackerSlots = {
    VtableSlot{offsetof(frugal_packer_vtable, create), "create"},
    VtableSlot{offsetof(frugal_packer_vtable, destroy), "destroy"},
    VtableSlot{offsetof(frugal_packer_vtable, pack), "pack"},
};

// gemm is optional (NULL where a strategy has none), so not listed.
constexpr std::array kQuantizerSlots = {
    VtableSlot{offsetof(frugal_quantizer_vtable, create), "create"},
    VtableSlot{offsetof(frugal_quantizer_vtable, destroy), "destroy"},
    VtableSlot{offsetof(frugal_quantizer_vtable, layout), "layout"},
    VtableSlot{offsetof(frugal_quantizer_vtable, quantize), "quantize"},
    VtableSlot{offsetof(frugal_quantizer_vtable, dequantize), "dequantize"},
    VtableSlot{offsetof(frugal_quantizer_vtable, export_state), "export_state"},
    VtableSlot{offsetof(frugal_quantizer_vtable, import_state), "import_state"},
};

constexpr std::array kPolicySlots = {
    VtableSlot{offsetof(frugal_policy_vtable, create), "create"},
    VtableSlot{offsetof(frugal_policy_vtable, destroy), "destroy"},
    VtableSlot{offsetof(frugal_policy_vtable, decide), "decide"},
    VtableSlot{offsetof(frugal_policy_vtable, export_state), "export_state"},
    VtableSlot{offsetof(frugal_policy_vtable, import_state), "import_state"},
};

constexpr std::array kRouterSlots = {
    VtableSlot{offsetof(frugal_router_vtable, create), "create"},
    VtableSlot{offsetof(frugal_router_vtable, destroy), "destroy"},
    VtableSlot{offsetof(frugal_router_vtable, layout), "layout"},
    VtableSlot{offsetof(frugal_router_vtable, route), "route"},
    VtableSlot{offsetof(frugal_router_vtable, permute), "permute"},
    VtableSlot{offsetof(frugal_router_vtable, combine), "combine"},
    VtableSlot{offsetof(frugal_router_vtable, update), "update"},
    VtableSlot{offsetof(frugal_router_vtable, export_state), "export_state"},
    VtableSlot{offsetof(frugal_router_vtable, import_state), "import_state"},
};

constexpr std::array kCommSlots = {
    VtableSlot{offsetof(frugal_comm_vtable, create), "create"},
    VtableSlot{offsetof(frugal_comm_vtable, destroy), "destroy"},
    VtableSlot{offsetof(frugal_comm_vtable, info), "info"},
    VtableSlot{offsetof(frugal_comm_vtable, split), "split"},
    VtableSlot{offsetof(frugal_comm_vtable, run), "run"},
};

const std::array kSpecs = {
    StrategyKindSpec{FRUGAL_KIND_PACKER, "packer", FRUGAL_PACKER_VTABLE_MIN_SIZE, sizeof(frugal_packer_vtable),
                     kPackerSlots},
    StrategyKindSpec{FRUGAL_KIND_QUANTIZER, "quantizer", FRUGAL_QUANTIZER_VTABLE_MIN_SIZE,
                     sizeof(frugal_quantizer_vtable), kQuantizerSlots},
    StrategyKindSpec{FRUGAL_KIND_ROUTER, "router", FRUGAL_ROUTER_VTABLE_MIN_SIZE, sizeof(frugal_router_vtable),
                     kRouterSlots},
    StrategyKindSpec{FRUGAL_KIND_POLICY, "policy", FRUGAL_POLICY_VTABLE_MIN_SIZE, sizeof(frugal_policy_vtable),
                     kPolicySlots},
    StrategyKindSpec{FRUGAL_KIND_SCHEDULE, "schedule", FRUGAL_SCHEDULE_VTABLE_MIN_SIZE, sizeof(frugal_schedule_vtable),
                     kScheduleSlots},
    StrategyKindSpec{FRUGAL_KIND_STORE, "store", FRUGAL_STORE_VTABLE_MIN_SIZE, sizeof(frugal_store_vtable),
                     kStoreSlots},
    StrategyKindSpec{FRUGAL_KIND_COMM, "comm", FRUGAL_COMM_VTABLE_MIN_SIZE, sizeof(frugal_comm_vtable), kCommSlots},
};

struct KindName {
  int32_t kind;
  const char* name;
};
constexpr std::array kKindNames = {
    KindName{FRUGAL_KIND_ROUTER, "router"},     KindName{FRUGAL_KIND_QUANTIZER, "quantizer"},
    KindName{FRUGAL_KIND_PACKER, "packer"},     KindName{FRUGAL_KIND_POLICY, "policy"},
    KindName{FRUGAL_KIND_SCHEDULE, "schedule"}, KindName{FRUGAL_KIND_STORE, "store"},
    KindName{FRUGAL_KIND_COMM, "comm"},
};

}  // namespace

const StrategyKindSpec* find_kind_spec(int32_t kind) {
  for (const auto& spec : kSpecs)
    if (spec.kind == kind) return &spec;
  return nullptr;
}

const char* kind_name(int32_t kind) {
  for (const auto& k : kKindNames)
    if (k.kind == kind) return k.name;
  return "unknown";
}

int32_t kind_from_name(const char* name) {
  if (name == nullptr) return 0;
  for (const auto& k : kKindNames)
    if (std::strcmp(k.name, name) == 0) return k.kind;
  return 0;
}

}  // namespace frugal

extern "C" FRUGAL_API const char* frugal_strategy_kind_name(int32_t kind) { return frugal::kind_name(kind); }
