// A schedule plugin that breaks one rule of the contract per build
// (BROKEN_FAULT), so the conformance kit can be shown to name that rule.
// Written against the raw ABI, without the sdk adapters that would guard
// against exactly these faults.
#include <atomic>

#include "frugal/plugin.h"
#include "frugal/schedule_vtable.h"

namespace {

enum Fault { kCrashOnNull = 1, kNondeterministic = 2, kLeak = 3, kIgnoresUnknownOptions = 4 };

const frugal_host_api* g_host = nullptr;
std::atomic<int> g_created{0};

frugal_error* create(const frugal_host_api* host, const frugal_options* options, void** instance) {
  if (instance == nullptr) return host->error_create(FRUGAL_ERR_INVALID_ARGUMENT, "create: instance is NULL");
  if (BROKEN_FAULT != kIgnoresUnknownOptions) {
    static const char* const known[] = {"lr"};
    if (frugal_error* e = host->options_check_known(options, known, 1, "broken")) return e;
  }
  // Each instance remembers its creation order: the non-deterministic
  // fault lets it leak into the rate.
  int* self = static_cast<int*>(host->alloc(host, sizeof(int), 0));
  *self = ++g_created;
  *instance = self;
  return nullptr;
}

void destroy(void* instance) {
  if (BROKEN_FAULT != kLeak) g_host->free(g_host, instance);
}

frugal_error* lr(void* instance, int64_t step, double* out) {
  if (BROKEN_FAULT != kCrashOnNull && out == nullptr)
    return g_host->error_create(FRUGAL_ERR_INVALID_ARGUMENT, "lr: out is NULL");
  if (step < 0) return g_host->error_create(FRUGAL_ERR_OUT_OF_RANGE, "lr: negative step");
  const int order = *static_cast<int*>(instance);
  *out = 0.001 * (BROKEN_FAULT == kNondeterministic ? order : 1);
  return nullptr;
}

constexpr frugal_schedule_vtable kVtable{sizeof(frugal_schedule_vtable), &create, &destroy, &lr};
constexpr frugal_strategy_desc kStrategy{sizeof(frugal_strategy_desc), FRUGAL_KIND_SCHEDULE,
                                         FRUGAL_STRATEGY_DETERMINISTIC, "broken", "breaks one rule",
                                         &kVtable, nullptr};
constexpr const frugal_strategy_desc* kStrategies[] = {&kStrategy};
constexpr frugal_plugin_desc kPlugin{sizeof(frugal_plugin_desc), FRUGAL_ABI_VERSION_MAJOR, FRUGAL_ABI_VERSION_MINOR,
                                     BROKEN_NAME, "1.0", "frugal tests", "Apache-2.0", 1, kStrategies,
                                     nullptr, nullptr, nullptr};

}  // namespace

extern "C" FRUGAL_PLUGIN_EXPORT frugal_error* frugal_plugin_init_v1(const frugal_host_api* host,
                                                                    const frugal_plugin_desc** out) {
  g_host = host;
  *out = &kPlugin;
  return nullptr;
}
