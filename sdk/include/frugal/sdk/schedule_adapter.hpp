// frugal/sdk/schedule_adapter.hpp — declare an LR schedule strategy as a
// plain C++ class. The class needs:
//   explicit Impl(const frugal::sdk::Options& options);  // validate, throw PluginError
//   double lr(int64_t step) const;                        // throw PluginError on bad input
// and schedule_strategy<Impl>(name, summary, flags) yields its descriptor.
#pragma once

#include <cstdint>
#include <memory>

#include "frugal/schedule_vtable.h"
#include "frugal/sdk/plugin_support.hpp"

namespace frugal::sdk {

template <typename Impl>
struct ScheduleAdapter {
  struct Instance {
    const frugal_host_api* host;
    Impl impl;
  };

  static frugal_error* create(const frugal_host_api* host, const frugal_options* options, void** instance) {
    return guard(host, [&] {
      if (instance == nullptr) throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "create: instance is NULL");
      *instance = new Instance{host, Impl(Options(host, options))};
    });
  }

  static void destroy(void* instance) { delete static_cast<Instance*>(instance); }

  static frugal_error* lr(void* instance, int64_t step, double* out) {
    auto* self = static_cast<Instance*>(instance);
    return guard(self->host, [&] {
      if (out == nullptr) throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "lr: output pointer is NULL");
      *out = self->impl.lr(step);
    });
  }

  static constexpr frugal_schedule_vtable vtable{sizeof(frugal_schedule_vtable), &create, &destroy, &lr};
};

// ext: the descriptor's extension chain, e.g. options_ext<kOptions>() (option_decl.hpp).
template <typename Impl>
constexpr frugal_strategy_desc schedule_strategy(const char* name, const char* summary, uint32_t flags,
                                                 const frugal_ext_header* ext = nullptr) {
  return frugal_strategy_desc{
      sizeof(frugal_strategy_desc), FRUGAL_KIND_SCHEDULE, flags, name, summary, &ScheduleAdapter<Impl>::vtable, ext};
}

}  // namespace frugal::sdk
