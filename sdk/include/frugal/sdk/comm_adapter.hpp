// frugal/sdk/comm_adapter.hpp — declare a collective-communication backend
// (FRUGAL_KIND_COMM, frugal/comm_vtable.h, ABI 2.1) as a plain C++ class.
// The class needs:
//   explicit Impl(const frugal::sdk::Options& options);  // join the group; throw PluginError
//   frugal_comm_info info() const;                        // rank, size, device
//   std::unique_ptr<Impl> split(int32_t color, int32_t key, int64_t timeout_ms);  // nullptr: joins none
//   void run(const frugal_comm_call& call);               // one checked collective
// and comm_strategy<Impl>(name, summary, flags) yields its descriptor.
//
// The core has checked every call (frugal/comm_vtable.h), so run() moves
// bytes; the adapter reads the call struct as sized by the core, owns the
// instances (split's included) and turns whatever Impl throws into a
// frugal error through guard().
#pragma once

#include <cstdint>
#include <memory>

#include "frugal/comm_vtable.h"
#include "frugal/sdk/instance_slots.hpp"
#include "frugal/sdk/plugin_support.hpp"

namespace frugal::sdk {

template <typename Impl>
struct CommAdapter {
  struct Instance {
    const frugal_host_api* host;
    std::unique_ptr<Impl> impl;
  };

  static Instance& self(void* comm) { return *static_cast<Instance*>(comm); }

  static frugal_error* create(const frugal_host_api* host, const frugal_options* options, void** comm) {
    return guard(host, [&] {
      if (comm == nullptr) throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "create: comm is NULL");
      *comm = new Instance{host, std::make_unique<Impl>(Options(host, options))};
    });
  }

  static void destroy(void* comm) { delete static_cast<Instance*>(comm); }

  static frugal_error* info(void* comm, frugal_comm_info* out) {
    Instance& s = self(comm);
    return guard(s.host, [&] { write_sized_out(out, s.impl->info(), "info"); });
  }

  static frugal_error* split(void* comm, int32_t color, int32_t key, int64_t timeout_ms, void** sub) {
    Instance& s = self(comm);
    return guard(s.host, [&] {
      if (sub == nullptr) throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "split: sub is NULL");
      *sub = nullptr;
      std::unique_ptr<Impl> part = s.impl->split(color, key, timeout_ms);
      if (part) *sub = new Instance{s.host, std::move(part)};
    });
  }

  static frugal_error* run(void* comm, const frugal_comm_call* call) {
    Instance& s = self(comm);
    return guard(s.host, [&] { s.impl->run(read_sized_args(call, FRUGAL_COMM_CALL_MIN_SIZE, "call")); });
  }

  static constexpr frugal_comm_vtable vtable{sizeof(frugal_comm_vtable), &create, &destroy, &info, &split, &run};
};

// ext: the descriptor's extension chain, e.g. options_ext<kOptions>() (option_decl.hpp).
template <typename Impl>
constexpr frugal_strategy_desc comm_strategy(const char* name, const char* summary, uint32_t flags,
                                             const frugal_ext_header* ext = nullptr) {
  return frugal_strategy_desc{
      sizeof(frugal_strategy_desc), FRUGAL_KIND_COMM, flags, name, summary, &CommAdapter<Impl>::vtable, ext};
}

}  // namespace frugal::sdk
