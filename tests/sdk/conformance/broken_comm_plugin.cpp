// A comm plugin (FRUGAL_KIND_COMM, comm_vtable.h): a group of one process
// in host memory, like comm_local, that breaks one rule of the contract per
// build (BROKEN_COMM_FAULT), so the conformance kit can be shown to name
// that rule. Written against the raw ABI, without the sdk's comm adapter
// that would guard against exactly these faults.
#include <cstring>

#include "frugal/comm_vtable.h"
#include "frugal/plugin.h"
#include "frugal/sdk/tensor_view.hpp"

namespace {

enum Fault {
  kReduceDoesNothing = 1,     // all_reduce out of place leaves recv as it was
  kInfoRankOutOfRange = 2,    // info says rank 1 of a group of 1
  kCrashOnNullOut = 3,        // info writes through a NULL out
  kSplitNoneGivesGroup = 4,   // split(FRUGAL_COMM_COLOR_NONE) gives a sub-group instead of NULL
  kIgnoresDisplacements = 5,  // all_gather_v writes at element 0 whatever recv_displs says
  kAcceptsUnknownOp = 6       // run() succeeds on an op it does not know
};

const frugal_host_api* g_host = nullptr;

frugal_error* error(int32_t code, const char* message) { return g_host->error_create(code, message); }

frugal_error* create(const frugal_host_api* host, const frugal_options* options, void** comm) {
  if (comm == nullptr) return host->error_create(FRUGAL_ERR_INVALID_ARGUMENT, "create: comm is NULL");
  if (frugal_error* e = host->options_check_known(options, nullptr, 0, "comm 'broken'")) return e;
  void* self = host->alloc(host, 16, 0);
  if (self == nullptr) return host->error_create(FRUGAL_ERR_OUT_OF_MEMORY, "create: out of memory");
  *comm = self;
  return nullptr;
}

void destroy(void* comm) { g_host->free(g_host, comm); }

frugal_error* info(void*, frugal_comm_info* out) {
  if (BROKEN_COMM_FAULT != kCrashOnNullOut && out == nullptr)
    return error(FRUGAL_ERR_INVALID_ARGUMENT, "info: out is NULL");
  frugal_comm_info full{};
  full.struct_size = out->struct_size;
  full.rank = BROKEN_COMM_FAULT == kInfoRankOutOfRange ? 1 : 0;
  full.size = 1;
  full.device_type = FRUGAL_DEVICE_CPU;
  std::memcpy(out, &full, out->struct_size < sizeof full ? out->struct_size : sizeof full);
  return nullptr;
}

frugal_error* split(void*, int32_t color, int32_t, int64_t, void** sub) {
  if (sub == nullptr) return error(FRUGAL_ERR_INVALID_ARGUMENT, "split: sub is NULL");
  *sub = nullptr;
  if (color == FRUGAL_COMM_COLOR_NONE && BROKEN_COMM_FAULT != kSplitNoneGivesGroup) return nullptr;
  return create(g_host, nullptr, sub);
}

frugal_error* run(void*, const frugal_comm_call* call) {
  if (call == nullptr) return error(FRUGAL_ERR_INVALID_ARGUMENT, "run: call is NULL");
  if (call->struct_size < FRUGAL_COMM_CALL_MIN_SIZE) return error(FRUGAL_ERR_ABI_MISMATCH, "run: call too small");
  const size_t width = frugal::sdk::dtype_size(call->dtype);
  auto* recv = static_cast<char*>(call->recv);
  const auto* send = static_cast<const char*>(call->send);
  const auto copy = [width](char* to, const char* from, size_t count) {
    if (count > 0 && to != from) std::memmove(to, from, count * width);
  };
  switch (call->op) {
    case FRUGAL_COMM_ALL_REDUCE:
      if (BROKEN_COMM_FAULT == kReduceDoesNothing) return nullptr;
      copy(recv, send, call->count);
      return nullptr;
    case FRUGAL_COMM_ALL_GATHER:
    case FRUGAL_COMM_REDUCE_SCATTER:
    case FRUGAL_COMM_ALL_TO_ALL: copy(recv, send, call->count); return nullptr;
    case FRUGAL_COMM_ALL_GATHER_V:
      copy(recv + (BROKEN_COMM_FAULT == kIgnoresDisplacements ? 0 : call->recv_displs[0]) * width, send, call->count);
      return nullptr;
    case FRUGAL_COMM_ALL_TO_ALL_V:
      if (call->send_counts[0] != call->recv_counts[0])
        return error(FRUGAL_ERR_INVALID_ARGUMENT, "all_to_all_v: send_counts[0] != recv_counts[0] on one rank");
      copy(recv + call->recv_displs[0] * width, send + call->send_displs[0] * width, call->send_counts[0]);
      return nullptr;
    case FRUGAL_COMM_BROADCAST:
    case FRUGAL_COMM_BARRIER: return nullptr;
    default:
      if (BROKEN_COMM_FAULT == kAcceptsUnknownOp) return nullptr;
      return error(FRUGAL_ERR_INVALID_ARGUMENT, "run: op is not a frugal_comm_op_values value");
  }
}

constexpr frugal_comm_vtable kComm{sizeof(frugal_comm_vtable), &create, &destroy, &info, &split, &run};
constexpr frugal_strategy_desc kStrategy{
    sizeof(frugal_strategy_desc), FRUGAL_KIND_COMM, 0, "broken", "breaks one rule", &kComm, nullptr};
constexpr const frugal_strategy_desc* kStrategies[] = {&kStrategy};
constexpr frugal_plugin_desc kPlugin{sizeof(frugal_plugin_desc),
                                     FRUGAL_ABI_VERSION_MAJOR,
                                     FRUGAL_ABI_VERSION_MINOR,
                                     BROKEN_COMM_NAME,
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
