// Plugins for the loader tests, one .so per variant (FRUGAL_TEST_VARIANT).
// Written against the raw C ABI on purpose (no sdk adapters): most
// variants break the contract in exactly one way, and the loader must
// refuse each with a clear error while the host keeps working.
#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>

#include "frugal/plugin.h"
#include "frugal/schedule_vtable.h"

#ifndef FRUGAL_TEST_VARIANT
#error "FRUGAL_TEST_VARIANT must be defined"
#endif

namespace {

enum Variant {
  kAlpha = 1,     // good: schedules linear, cosine (collides with schedule_lr), throws, fails + an unknown kind
  kAlphaCopy,     // good but the same plugin name as kAlpha
  kNoEntry,       // exports nothing
  kEntryError,    // entry returns an error
  kEntryThrows,   // entry throws a C++ exception
  kMajor1Desc,    // exports this major's entry symbol but claims ABI 1.1 (the previous major)
  kMajor1Symbol,  // exports frugal_plugin_init_v1 only, as a plugin built for ABI 1 does
  kNewerMinor,    // minor 7 with larger descriptor, strategy desc and vtable
  kOlderMinor,    // smallest legal structs; garbage past struct_size
  kNullSlot,      // required vtable slot lr is NULL
  kNullVtable,    // strategy with a NULL vtable
  kNullName,      // plugin name NULL
  kDupStrategy,   // two schedules with the same name
  kSmallVtable,   // vtable struct_size below the minimum
  kNullDesc,      // entry succeeds without a descriptor
  kTinyDesc,      // descriptor struct_size 8
  kBadName,       // plugin name with forbidden characters
};
constexpr int kVariant = FRUGAL_TEST_VARIANT;

const frugal_host_api* g_host = nullptr;

// --- schedule "linear": lr = slope * step (option slope, default 0.5) ---
struct Linear {
  double slope;
};

frugal_error* linear_create(const frugal_host_api* host, const frugal_options* options, void** instance) {
  double slope = 0.0;
  if (frugal_error* e = host->option_get_double(options, "slope", 0.5, &slope)) return e;
  *instance = new (std::nothrow) Linear{slope};
  return *instance != nullptr ? nullptr : host->error_create(FRUGAL_ERR_OUT_OF_MEMORY, "oom");
}
void linear_destroy(void* instance) { delete static_cast<Linear*>(instance); }
frugal_error* linear_lr(void* instance, int64_t step, double* lr) {
  *lr = static_cast<Linear*>(instance)->slope * static_cast<double>(step);
  return nullptr;
}

// --- schedule returning 42 whatever the step ---
int g_token = 0;
frugal_error* fixed_create(const frugal_host_api*, const frugal_options*, void** instance) {
  *instance = &g_token;
  return nullptr;
}
void fixed_destroy(void*) {}
frugal_error* fixed_lr(void*, int64_t, double* lr) {
  *lr = 42.0;
  return nullptr;
}

// --- misbehaving schedules ---
frugal_error* throwing_lr(void*, int64_t, double*) { throw std::runtime_error("lr exploded"); }
frugal_error* failing_create(const frugal_host_api* host, const frugal_options*, void**) {
  return host->error_create(FRUGAL_ERR_INVALID_ARGUMENT, "fails on purpose");
}

// --- schedule whose create exercises the host services table ---
frugal_error* hostcheck_create(const frugal_host_api* host, const frugal_options* options, void** instance) {
  if (host->struct_size < FRUGAL_HOST_API_V2_0_SIZE || host->abi_major != FRUGAL_ABI_VERSION_MAJOR)
    return host->error_create(FRUGAL_ERR_ABI_MISMATCH, "host table too small or wrong major");
  void* block = host->alloc(host, 1000, 256);
  const bool aligned = block != nullptr && reinterpret_cast<uintptr_t>(block) % 256 == 0;
  if (block != nullptr) std::memset(block, 0x11, 1000);
  host->free(host, block);
  host->free(host, nullptr);
  host->error_destroy(host->error_create(FRUGAL_ERR_INTERNAL, "handled inside the plugin"));  // LSan: no leak
  host->error_destroy(nullptr);
  if (!aligned) return host->error_create(FRUGAL_ERR_INTERNAL, "alloc ignored the alignment");
  if (host->alloc(host, 0, 16) != nullptr) return host->error_create(FRUGAL_ERR_INTERNAL, "alloc(0) is not NULL");
  if (host->alloc(host, 64, 48) != nullptr)
    return host->error_create(FRUGAL_ERR_INTERNAL, "alloc accepted a non-power-of-two alignment");
  if (host->option_type(options, "mode") != FRUGAL_OPTION_STRING)
    return host->error_create(FRUGAL_ERR_INVALID_ARGUMENT, "option 'mode' must be a string");
  const char* mode = nullptr;
  if (frugal_error* e = host->option_get_string(options, "mode", nullptr, &mode)) return e;
  const char* known[] = {"mode"};
  if (frugal_error* e = host->options_check_known(options, known, 1, nullptr)) return e;
  host->log(host, FRUGAL_LOG_WARN, mode);
  host->log(nullptr, FRUGAL_LOG_WARN, "ignored: no host");
  *instance = &g_token;
  return nullptr;
}

constexpr frugal_schedule_vtable kLinearVtable{sizeof(frugal_schedule_vtable), &linear_create, &linear_destroy,
                                               &linear_lr};
constexpr frugal_schedule_vtable kFixedVtable{sizeof(frugal_schedule_vtable), &fixed_create, &fixed_destroy, &fixed_lr};
constexpr frugal_schedule_vtable kThrowingVtable{sizeof(frugal_schedule_vtable), &fixed_create, &fixed_destroy,
                                                 &throwing_lr};
constexpr frugal_schedule_vtable kHostCheckVtable{sizeof(frugal_schedule_vtable), &hostcheck_create, &fixed_destroy,
                                                  &fixed_lr};
constexpr frugal_schedule_vtable kFailingVtable{sizeof(frugal_schedule_vtable), &failing_create, &fixed_destroy,
                                                &fixed_lr};
constexpr frugal_schedule_vtable kNullSlotVtable{sizeof(frugal_schedule_vtable), &fixed_create, &fixed_destroy,
                                                 nullptr};
constexpr frugal_schedule_vtable kUndersizedVtable{16, &fixed_create, &fixed_destroy, &fixed_lr};

constexpr frugal_strategy_desc schedule(const char* name, const frugal_schedule_vtable* vtable) {
  return {sizeof(frugal_strategy_desc), FRUGAL_KIND_SCHEDULE, 0, name, "test schedule", vtable, nullptr};
}

// --- newer minor (1.7): every struct grew ---
struct VtableV17 {
  frugal_schedule_vtable base;
  void* slot_added_in_1_7;
};
struct StrategyV17 {
  frugal_strategy_desc base;
  int64_t field_added_in_1_7;
};
struct PluginDescV17 {
  frugal_plugin_desc base;
  const char* homepage;
  uint64_t more[4];
};

const VtableV17 kNewerVtable{{sizeof(VtableV17), &linear_create, &linear_destroy, &linear_lr}, nullptr};
const StrategyV17 kNewerStrategy{
    {sizeof(StrategyV17), FRUGAL_KIND_SCHEDULE, 0, "newer_linear", "from a newer minor", &kNewerVtable, nullptr}, 7};
const frugal_strategy_desc* const kNewerList[] = {&kNewerStrategy.base};

// --- older minor: only the required prefix is valid; past it lies garbage
// that a correct core never reads (it would crash if it called on_unload). ---
frugal_strategy_desc make_older_strategy() {
  frugal_strategy_desc d = schedule("older_linear", &kLinearVtable);
  d.struct_size = FRUGAL_STRATEGY_DESC_MIN_SIZE;
  std::memset(&d.ext, 0xAB, sizeof(d.ext));
  return d;
}
const frugal_strategy_desc kOlderStrategy = make_older_strategy();
const frugal_strategy_desc* const kOlderList[] = {&kOlderStrategy};

// --- alpha ---
constexpr frugal_strategy_desc kAlphaLinear = schedule("linear", &kLinearVtable);
constexpr frugal_strategy_desc kAlphaCosine = schedule("cosine", &kFixedVtable);
constexpr frugal_strategy_desc kAlphaThrows = schedule("throws", &kThrowingVtable);
constexpr frugal_strategy_desc kAlphaFails = schedule("fails", &kFailingVtable);
constexpr frugal_strategy_desc kAlphaHostCheck = schedule("hostcheck", &kHostCheckVtable);
constexpr frugal_strategy_desc kAlphaFuture{
    sizeof(frugal_strategy_desc), 60, 0, "future_thing", "a kind from the future", &kFixedVtable, nullptr};
const frugal_strategy_desc* const kAlphaList[] = {&kAlphaLinear, &kAlphaCosine,    &kAlphaThrows,
                                                  &kAlphaFails,  &kAlphaHostCheck, &kAlphaFuture};

constexpr frugal_strategy_desc kNullSlotStrategy = schedule("broken", &kNullSlotVtable);
constexpr frugal_strategy_desc kNullVtableStrategy = schedule("broken", nullptr);
constexpr frugal_strategy_desc kSmallVtableStrategy = schedule("broken", &kUndersizedVtable);
constexpr frugal_strategy_desc kSame1 = schedule("same", &kFixedVtable);
constexpr frugal_strategy_desc kSame2 = schedule("same", &kLinearVtable);
const frugal_strategy_desc* const kNullSlotList[] = {&kNullSlotStrategy};
const frugal_strategy_desc* const kNullVtableList[] = {&kNullVtableStrategy};
const frugal_strategy_desc* const kSmallVtableList[] = {&kSmallVtableStrategy};
const frugal_strategy_desc* const kDupList[] = {&kSame1, &kSame2};

frugal_plugin_desc base_desc(const char* name, const frugal_strategy_desc* const* list, size_t count) {
  return frugal_plugin_desc{sizeof(frugal_plugin_desc),
                            FRUGAL_ABI_VERSION_MAJOR,
                            FRUGAL_ABI_VERSION_MINOR,
                            name,
                            "1.2.3",
                            "frugal tests",
                            "MIT",
                            count,
                            list,
                            "a test plugin",
                            nullptr,
                            nullptr};
}

PluginDescV17 g_newer{};
frugal_plugin_desc g_desc{};

[[maybe_unused]] frugal_error* init(const frugal_host_api* host, const frugal_plugin_desc** out) {
  g_host = host;
  switch (kVariant) {
    case kAlpha:
    case kAlphaCopy:
      host->log(host, FRUGAL_LOG_INFO, "alpha initialised");  // lets tests count entry calls
      g_desc = base_desc("alpha", kAlphaList, 6);
      break;
    case kEntryError: return host->error_create(FRUGAL_ERR_UNSUPPORTED, "needs a GPU that is not there");
    case kEntryThrows: throw std::runtime_error("boom from init");
    case kMajor1Desc:
      g_desc = base_desc("major1", kAlphaList, 1);
      g_desc.abi_major = 1;
      g_desc.abi_minor = 1;
      break;
    case kNewerMinor:
      g_newer.base = base_desc("newer", kNewerList, 1);
      g_newer.base.struct_size = sizeof(PluginDescV17);
      g_newer.base.abi_minor = 7;
      g_newer.homepage = "https://example.invalid";
      *out = &g_newer.base;
      return nullptr;
    case kOlderMinor:
      g_desc = base_desc("older", kOlderList, 1);
      g_desc.abi_minor = 0;  // built for the first minor, whatever these headers are
      g_desc.struct_size = FRUGAL_PLUGIN_DESC_MIN_SIZE;
      std::memset(&g_desc.description, 0xAB, sizeof(g_desc.description));
      std::memset(&g_desc.on_unload, 0xAB, sizeof(g_desc.on_unload));
      break;
    case kNullSlot: g_desc = base_desc("nullslot", kNullSlotList, 1); break;
    case kNullVtable: g_desc = base_desc("nullvtable", kNullVtableList, 1); break;
    case kNullName: g_desc = base_desc(nullptr, kAlphaList, 1); break;
    case kDupStrategy: g_desc = base_desc("dup", kDupList, 2); break;
    case kSmallVtable: g_desc = base_desc("smallvtable", kSmallVtableList, 1); break;
    case kNullDesc: return nullptr;
    case kTinyDesc:
      g_desc = base_desc("tiny", kAlphaList, 1);
      g_desc.struct_size = 8;
      break;
    case kBadName: g_desc = base_desc("Bad Name!", kAlphaList, 1); break;
    default: return host->error_create(FRUGAL_ERR_INTERNAL, "unknown test variant");
  }
  *out = &g_desc;
  return nullptr;
}

}  // namespace

#if FRUGAL_TEST_VARIANT == 7  // kMajor1Symbol: what a plugin built for ABI 1 exports
extern "C" FRUGAL_PLUGIN_EXPORT frugal_error* frugal_plugin_init_v1(const frugal_host_api* host,
                                                                    const frugal_plugin_desc** out) {
  return init(host, out);
}
#elif FRUGAL_TEST_VARIANT != 3  // kNoEntry exports nothing at all
extern "C" FRUGAL_PLUGIN_EXPORT frugal_error* FRUGAL_PLUGIN_ENTRY(const frugal_host_api* host,
                                                                  const frugal_plugin_desc** out) {
  return init(host, out);
}
#endif
