// The plugin of the compatibility matrix (test_compat_matrix.cpp), written
// against the raw C ABI the way a vendor without the sdk helpers would, and
// compiled six times (CMakeLists.txt):
// - as is: built against the v2.0 headers (the first minor of this major),
//   against the v2.1 headers (release 0.3.0), the v2.2 headers (0.4.0) and
//   the v2.3 headers (0.5.0);
// - as is, against the frozen headers of ABI 1.1, the previous major: this
//   core must refuse it with a message naming both versions;
// - with FRUGAL_COMPAT_NEWER_MINOR: as a plugin built with the headers of a
//   later minor looks to this core. Every struct it hands over is larger
//   (trailing fields and vtable slots this core does not know), it declares
//   abi_minor one above the headers', and it uses a host slot of that later
//   minor only after checking host->struct_size, as ABI rule 3 requires.
//
// Strategies: schedule "compat_linear" (lr = slope * step, option slope,
// default 0.5) and schedule "compat_probe", whose lr at step k reports the
// k-th thing the plugin observed (kProbe* below), so the test can check what
// happened on the plugin's side of the boundary through the public API only.
#include <cstddef>
#include <cstdint>
#include <new>

#include "frugal/plugin.h"
#include "frugal/schedule_vtable.h"

#ifndef FRUGAL_COMPAT_PLUGIN_NAME
#error "FRUGAL_COMPAT_PLUGIN_NAME must be defined"
#endif

#include "compat_probe.h"

// The headers of ABI 1 had no identifier for the entry point, and named the
// frozen host-table size after 1.0.
#ifndef FRUGAL_PLUGIN_ENTRY
#define FRUGAL_PLUGIN_ENTRY frugal_plugin_init_v1
#define FRUGAL_HOST_API_V2_0_SIZE FRUGAL_HOST_API_V1_0_SIZE
#endif

namespace {

const frugal_host_api* g_host = nullptr;
bool g_used_newer_host_slot = false;
int g_newer_vtable_slot_calls = 0;

struct Linear {
  double slope;
};

frugal_error* linear_create(const frugal_host_api* host, const frugal_options* options, void** instance) {
  if (instance == nullptr) return host->error_create(FRUGAL_ERR_INVALID_ARGUMENT, "instance is NULL");
  const char* const known[] = {"slope"};
  if (frugal_error* e = host->options_check_known(options, known, 1, "compat_linear")) return e;
  double slope = 0.0;
  if (frugal_error* e = host->option_get_double(options, "slope", 0.5, &slope)) return e;
  *instance = new (std::nothrow) Linear{slope};
  return *instance != nullptr ? nullptr : host->error_create(FRUGAL_ERR_OUT_OF_MEMORY, "out of memory");
}
void linear_destroy(void* instance) { delete static_cast<Linear*>(instance); }
frugal_error* linear_lr(void* instance, int64_t step, double* lr) {
  if (lr == nullptr) return g_host->error_create(FRUGAL_ERR_INVALID_ARGUMENT, "lr is NULL");
  if (step < 0) return g_host->error_create(FRUGAL_ERR_OUT_OF_RANGE, "step must be >= 0");
  *lr = static_cast<Linear*>(instance)->slope * static_cast<double>(step);
  return nullptr;
}

int g_probe_token = 0;
frugal_error* probe_create(const frugal_host_api* host, const frugal_options* options, void** instance) {
  if (instance == nullptr) return host->error_create(FRUGAL_ERR_INVALID_ARGUMENT, "instance is NULL");
  if (frugal_error* e = host->options_check_known(options, nullptr, 0, "compat_probe")) return e;
  *instance = &g_probe_token;
  return nullptr;
}
void probe_destroy(void*) {}
frugal_error* probe_lr(void*, int64_t step, double* lr) {
  if (lr == nullptr) return g_host->error_create(FRUGAL_ERR_INVALID_ARGUMENT, "lr is NULL");
  if (step < 0) return g_host->error_create(FRUGAL_ERR_OUT_OF_RANGE, "step must be >= 0");
  switch (step) {
    case kProbeHostStructSize: *lr = static_cast<double>(g_host->struct_size); return nullptr;
    case kProbeHostAbiMinor: *lr = static_cast<double>(g_host->abi_minor); return nullptr;
    case kProbeUsedNewerHostSlot: *lr = g_used_newer_host_slot ? 1.0 : 0.0; return nullptr;
    case kProbeNewerVtableSlotCalls: *lr = static_cast<double>(g_newer_vtable_slot_calls); return nullptr;
    case kProbeHeadersMinor: *lr = FRUGAL_ABI_VERSION_MINOR; return nullptr;
    default: *lr = 0.0; return nullptr;  // any other step: nothing observed there
  }
}

#ifdef FRUGAL_COMPAT_NEWER_MINOR
// What the later minor's headers would declare: each struct with more at its end.
struct HostApiNext {
  frugal_host_api v2_0;
  void (*trace)(const frugal_host_api* host, const char* event);  // a host slot "added later"
};
struct ScheduleVtableNext {
  frugal_schedule_vtable base;
  frugal_error* (*warmup_steps)(void* instance, int64_t* steps);  // an optional slot "added later"
};
struct StrategyDescNext {
  frugal_strategy_desc base;
  uint64_t cost_hint;
};
struct PluginDescNext {
  frugal_plugin_desc base;
  const char* homepage;
  uint64_t reserved[2];
};

frugal_error* warmup_steps(void*, int64_t* steps) {  // this core must never call it: it does not know the slot
  ++g_newer_vtable_slot_calls;
  *steps = 0;
  return nullptr;
}

// Rule 3: a slot past the host's struct_size does not exist in that core.
bool host_has_trace(const frugal_host_api* host) {
  return host->struct_size >= offsetof(HostApiNext, trace) + sizeof(HostApiNext::trace);
}

const ScheduleVtableNext kLinearVtable{{sizeof(ScheduleVtableNext), &linear_create, &linear_destroy, &linear_lr},
                                       &warmup_steps};
const ScheduleVtableNext kProbeVtable{{sizeof(ScheduleVtableNext), &probe_create, &probe_destroy, &probe_lr},
                                      &warmup_steps};
const StrategyDescNext kLinear{
    {sizeof(StrategyDescNext), FRUGAL_KIND_SCHEDULE, 0, "compat_linear", "slope * step", &kLinearVtable.base, nullptr},
    0xFFFF'FFFF'FFFF'FFFFu};
const StrategyDescNext kProbe{{sizeof(StrategyDescNext), FRUGAL_KIND_SCHEDULE, 0, "compat_probe",
                               "reports what the plugin observed", &kProbeVtable.base, nullptr},
                              0xFFFF'FFFF'FFFF'FFFFu};
const frugal_strategy_desc* const kStrategies[] = {&kLinear.base, &kProbe.base};
constexpr uint32_t kDeclaredMinor = FRUGAL_ABI_VERSION_MINOR + 1;
PluginDescNext g_desc{};
#else
const frugal_schedule_vtable kLinearVtable{sizeof(frugal_schedule_vtable), &linear_create, &linear_destroy, &linear_lr};
const frugal_schedule_vtable kProbeVtable{sizeof(frugal_schedule_vtable), &probe_create, &probe_destroy, &probe_lr};
const frugal_strategy_desc kLinear{
    sizeof(frugal_strategy_desc), FRUGAL_KIND_SCHEDULE, 0, "compat_linear", "slope * step", &kLinearVtable, nullptr};
const frugal_strategy_desc kProbe{sizeof(frugal_strategy_desc),       FRUGAL_KIND_SCHEDULE, 0,      "compat_probe",
                                  "reports what the plugin observed", &kProbeVtable,        nullptr};
const frugal_strategy_desc* const kStrategies[] = {&kLinear, &kProbe};
constexpr uint32_t kDeclaredMinor = FRUGAL_ABI_VERSION_MINOR;
struct {
  frugal_plugin_desc base;
} g_desc{};
#endif

}  // namespace

extern "C" FRUGAL_PLUGIN_EXPORT frugal_error* FRUGAL_PLUGIN_ENTRY(const frugal_host_api* host,
                                                                  const frugal_plugin_desc** out) {
  if (host->struct_size < FRUGAL_HOST_API_V2_0_SIZE)
    return host->error_create(FRUGAL_ERR_ABI_MISMATCH, "host table smaller than the first minor's");
  g_host = host;
#ifdef FRUGAL_COMPAT_NEWER_MINOR
  if (host_has_trace(host)) {
    reinterpret_cast<const HostApiNext*>(host)->trace(host, "initialised");
    g_used_newer_host_slot = true;
  } else {
    host->log(host, FRUGAL_LOG_DEBUG, "host predates the trace slot; tracing through log");
  }
  g_desc.homepage = "https://example.invalid";
#endif
  g_desc.base = frugal_plugin_desc{sizeof(g_desc), FRUGAL_ABI_VERSION_MAJOR,
                                   kDeclaredMinor, FRUGAL_COMPAT_PLUGIN_NAME,
                                   "1.0.0",        "frugal tests",
                                   "MIT",          2,
                                   kStrategies,    "compatibility matrix plugin",
                                   nullptr,        nullptr};
  *out = &g_desc.base;
  return nullptr;
}
