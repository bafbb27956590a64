// A schedule plugin (or, for kAcceptsSmallStruct, a policy plugin) that
// breaks one rule of the contract per build (BROKEN_FAULT), so the
// conformance kit can be shown to name that rule. Written against the raw
// ABI, without the sdk adapters that would guard against exactly these
// faults. The option faults declare an option `steps` (int, default 5, in
// [1, 10]) whose code disagrees with the declaration.
#include <atomic>
#include <chrono>
#include <thread>

#include "frugal/plugin.h"
#include "frugal/policy_vtable.h"
#include "frugal/schedule_vtable.h"

namespace {

enum Fault {
  kCrashOnNull = 1,
  kNondeterministic = 2,
  kLeak = 3,
  kIgnoresUnknownOptions = 4,
  kThreadUnsafe = 5,        // declares THREAD_SAFE, but calls share scratch state
  kAcceptsSmallStruct = 6,  // a policy that reads telemetry past its struct_size
  kAcceptsAboveMax = 7,     // declares steps in [1, 10], its code accepts 11
  kRefusesDefault = 8       // declares steps' default 5, its code refuses anything above 4
};

constexpr bool kDeclaresSteps = BROKEN_FAULT == kAcceptsAboveMax || BROKEN_FAULT == kRefusesDefault;

const frugal_host_api* g_host = nullptr;
std::atomic<int> g_created{0};

frugal_error* create(const frugal_host_api* host, const frugal_options* options, void** instance) {
  if (instance == nullptr) return host->error_create(FRUGAL_ERR_INVALID_ARGUMENT, "create: instance is NULL");
  if (BROKEN_FAULT != kIgnoresUnknownOptions) {
    static const char* const known[] = {"lr", "steps"};
    if (frugal_error* e = host->options_check_known(options, known, kDeclaresSteps ? 2 : 1, "broken")) return e;
  }
  if (kDeclaresSteps) {
    // The code's own range: what the declaration below gets wrong.
    const int64_t hi = BROKEN_FAULT == kAcceptsAboveMax ? 1000 : 4;
    int64_t steps = 0;
    if (frugal_error* e = host->option_get_int(options, "steps", 3, &steps)) return e;
    if (steps < 1 || steps > hi) return host->error_create(FRUGAL_ERR_OUT_OF_RANGE, "option 'steps' out of range");
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
  if (BROKEN_FAULT == kThreadUnsafe) {
    // A scratch counter shared by every call, right only while calls do not
    // overlap: sequential calls always see 1, overlapping ones more. The
    // counter is atomic so the fault is a wrong answer, not a data race a
    // sanitizer would report instead; the pause makes overlaps certain.
    static std::atomic<int> in_flight{0};
    const int seen = ++in_flight;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    --in_flight;
    *out *= seen;
  }
  return nullptr;
}

// The policy of kAcceptsSmallStruct: decide never looks at
// telemetry->struct_size, so it reads fields an older (smaller) struct
// does not have instead of refusing it with FRUGAL_ERR_ABI_MISMATCH.
frugal_error* decide(void*, const frugal_telemetry* telemetry, frugal_decision* proposal) {
  if (telemetry == nullptr || proposal == nullptr)
    return g_host->error_create(FRUGAL_ERR_INVALID_ARGUMENT, "decide: telemetry or proposal is NULL");
  proposal->lr = telemetry->step >= 0 ? 0.001 : 0.0;
  return nullptr;
}

// A stateless policy: its state is empty.
frugal_error* export_state(void*, void*, size_t, size_t* size) {
  if (size == nullptr) return g_host->error_create(FRUGAL_ERR_INVALID_ARGUMENT, "export_state: size is NULL");
  *size = 0;
  return nullptr;
}

frugal_error* import_state(void*, const void*, size_t size) {
  if (size != 0) return g_host->error_create(FRUGAL_ERR_INVALID_ARGUMENT, "import_state: this policy has no state");
  return nullptr;
}

constexpr frugal_schedule_vtable kSchedule{sizeof(frugal_schedule_vtable), &create, &destroy, &lr};
constexpr frugal_policy_vtable kPolicy{
    sizeof(frugal_policy_vtable), &create, &destroy, &decide, &export_state, &import_state};
constexpr bool kIsPolicy = BROKEN_FAULT == kAcceptsSmallStruct;
constexpr frugal_option_decl kSteps{sizeof(frugal_option_decl),
                                    "steps",
                                    FRUGAL_OPTION_INT,
                                    FRUGAL_OPTION_DECL_HAS_MIN | FRUGAL_OPTION_DECL_HAS_MAX,
                                    "5",
                                    1.0,
                                    10.0,
                                    nullptr,
                                    "steps per rate"};
constexpr const frugal_option_decl* kDecls[] = {&kSteps};
constexpr frugal_strategy_options_ext kOptions{
    {sizeof(frugal_strategy_options_ext), FRUGAL_EXT_STRATEGY_OPTIONS, 0, nullptr}, 1, kDecls};
constexpr frugal_strategy_desc kStrategy{
    sizeof(frugal_strategy_desc),
    kIsPolicy ? FRUGAL_KIND_POLICY : FRUGAL_KIND_SCHEDULE,
    FRUGAL_STRATEGY_DETERMINISTIC | (BROKEN_FAULT == kThreadUnsafe ? FRUGAL_STRATEGY_THREAD_SAFE : 0u),
    "broken",
    "breaks one rule",
    kIsPolicy ? static_cast<const void*>(&kPolicy) : static_cast<const void*>(&kSchedule),
    kDeclaresSteps ? &kOptions.header : nullptr};
constexpr const frugal_strategy_desc* kStrategies[] = {&kStrategy};
constexpr frugal_plugin_desc kPlugin{sizeof(frugal_plugin_desc),
                                     FRUGAL_ABI_VERSION_MAJOR,
                                     FRUGAL_ABI_VERSION_MINOR,
                                     BROKEN_NAME,
                                     "1.0",
                                     "frugal tests",
                                     "Apache-2.0",
                                     1,
                                     kStrategies,
                                     nullptr,
                                     nullptr,
                                     nullptr};

}  // namespace

extern "C" FRUGAL_PLUGIN_EXPORT frugal_error* frugal_plugin_init_v2(const frugal_host_api* host,
                                                                    const frugal_plugin_desc** out) {
  g_host = host;
  *out = &kPlugin;
  return nullptr;
}
