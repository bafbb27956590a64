// Packer plugins for the packer tests, one .so per fault (BAD_PACKER_FAULT).
// Written against the raw C ABI (no sdk adapter, whose PackWriter would
// refuse some of these): each variant loads fine and then breaks the packer
// contract in one way, so the core's assignment check must catch it with
// FRUGAL_ERR_INTERNAL and a message naming the fault, without crashing.
// Every variant registers one strategy, "bad_packer".
#include <cstdint>
#include <cstdlib>
#include <stdexcept>

#include "frugal/packer_vtable.h"
#include "frugal/plugin.h"

#ifndef BAD_PACKER_FAULT
#error "BAD_PACKER_FAULT must be defined"
#endif

namespace {

enum Fault {
  kOk = 1,        // valid: one unit per pack, in reverse order, method left NULL
  kTwice,         // unit 0 written twice (so the last unit is never placed), one pack
  kOnePack,       // every unit in one pack: over max_len or max_per_pack, given the right input
  kZeroPacks,     // pack_count 0
  kEmptyPack,     // pack 0 empty, pack 1 holds everything
  kBadIndex,      // a unit index equal to the unit count
  kThrows,        // pack throws a C++ exception across the ABI
  kNullInstance,  // create succeeds with a NULL instance
};
constexpr int kFault = BAD_PACKER_FAULT;

int g_instance = 0;  // the instance: these packers keep no state

frugal_error* bad_create(const frugal_host_api*, const frugal_options*, void** instance) {
  *instance = kFault == kNullInstance ? nullptr : &g_instance;
  return nullptr;
}

// The core must never hand back the NULL instance of kNullInstance.
void bad_destroy(void* instance) {
  if (instance != &g_instance) std::abort();
}

frugal_error* bad_pack(void*, const frugal_pack_request* request, frugal_pack_assignment* out) {
  const auto n = static_cast<int64_t>(request->count);
  switch (kFault) {
    case kOk:
      for (int64_t p = 0; p < n; ++p) {
        out->units[p] = n - 1 - p;
        out->pack_offsets[p + 1] = p + 1;
      }
      out->pack_offsets[0] = 0;
      out->pack_count = request->count;
      return nullptr;
    case kTwice:
    case kOnePack:
    case kBadIndex:
      for (int64_t u = 0; u < n; ++u) out->units[u] = u;
      if (kFault == kTwice && n >= 2) out->units[n - 1] = 0;
      if (kFault == kBadIndex) out->units[n - 1] = n;
      out->pack_offsets[0] = 0;
      out->pack_offsets[1] = n;
      out->pack_count = 1;
      return nullptr;
    case kZeroPacks:
      out->pack_offsets[0] = 0;
      out->pack_count = 0;
      return nullptr;
    case kEmptyPack:
      for (int64_t u = 0; u < n; ++u) out->units[u] = u;
      out->pack_offsets[0] = 0;
      out->pack_offsets[1] = 0;
      out->pack_offsets[2] = n;
      out->pack_count = 2;
      return nullptr;
    case kThrows: throw std::runtime_error("bad_packer exploded");
    default: return nullptr;
  }
}

constexpr frugal_packer_vtable kVtable{sizeof(frugal_packer_vtable), &bad_create, &bad_destroy, &bad_pack};
constexpr frugal_strategy_desc kStrategy{sizeof(frugal_strategy_desc),        FRUGAL_KIND_PACKER, 0,      "bad_packer",
                                         "a packer that breaks the contract", &kVtable,           nullptr};
const frugal_strategy_desc* const kList[] = {&kStrategy};

constexpr frugal_plugin_desc kDesc{sizeof(frugal_plugin_desc),
                                   FRUGAL_ABI_VERSION_MAJOR,
                                   FRUGAL_ABI_VERSION_MINOR,
                                   BAD_PACKER_NAME,
                                   "1.0.0",
                                   "frugal tests",
                                   "MIT",
                                   1,
                                   kList,
                                   "a broken packer",
                                   nullptr,
                                   nullptr};

}  // namespace

extern "C" FRUGAL_PLUGIN_EXPORT frugal_error* frugal_plugin_init_v2(const frugal_host_api*,
                                                                    const frugal_plugin_desc** out) {
  *out = &kDesc;
  return nullptr;
}
