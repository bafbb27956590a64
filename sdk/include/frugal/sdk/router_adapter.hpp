// frugal/sdk/router_adapter.hpp — declare a router strategy as a plain C++
// class. The class needs:
//   explicit Impl(const frugal::sdk::Options& options);      // validate, throw PluginError
//   frugal_router_layout layout() const;                      // every field but struct_size
//   void route(const frugal_route_args& args);
//   void permute(const frugal_route_move_args& args);
//   void combine(const frugal_route_move_args& args);
//   void update(const frugal_router_update_args& args);       // a no-op for routers without a bias
//   std::vector<std::byte> export_state() const;              // empty: no state
//   void import_state(std::span<const std::byte> blob);       // leave the state as it was on error
// router_strategy<Impl>(name, summary, flags) yields its descriptor.
//
// Argument structs arrive as the core built them: the adapter copies each up
// to its struct_size into a zeroed struct of this header's size (fields a
// smaller caller lacks read as 0 / NULL). The plan inside route and move
// arguments is the core's own full-size struct. Every slot runs under
// guard(): whatever Impl throws becomes a frugal error. Impl serialises its
// own state: the slots are called concurrently when the strategy declares
// FRUGAL_STRATEGY_THREAD_SAFE.
#pragma once

#include <cstddef>

#include "frugal/router_vtable.h"
#include "frugal/sdk/instance_slots.hpp"
#include "frugal/sdk/plugin_support.hpp"

namespace frugal::sdk {

template <typename Impl>
struct RouterAdapter {
  struct Instance {
    const frugal_host_api* host;
    Impl impl;
  };

  static Instance& self(void* instance) { return *static_cast<Instance*>(instance); }

  static frugal_error* create(const frugal_host_api* host, const frugal_options* options, void** instance) {
    return guard(host, [&] {
      if (instance == nullptr) throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, "create: instance is NULL");
      *instance = new Instance{host, Impl(Options(host, options))};
    });
  }

  static void destroy(void* instance) { delete static_cast<Instance*>(instance); }

  static frugal_error* layout(void* instance, frugal_router_layout* out) {
    Instance& s = self(instance);
    return guard(s.host, [&] { write_sized_out(out, s.impl.layout(), "layout"); });
  }

  static frugal_error* route(void* instance, const frugal_route_args* args) {
    Instance& s = self(instance);
    return guard(s.host, [&] {
      s.impl.route(read_sized_args(args, offsetof(frugal_route_args, plan) + sizeof(void*), "route: args"));
    });
  }

  static frugal_error* permute(void* instance, const frugal_route_move_args* args) {
    Instance& s = self(instance);
    return guard(s.host, [&] { s.impl.permute(read_move(args, "permute: args")); });
  }

  static frugal_error* combine(void* instance, const frugal_route_move_args* args) {
    Instance& s = self(instance);
    return guard(s.host, [&] { s.impl.combine(read_move(args, "combine: args")); });
  }

  static frugal_error* update(void* instance, const frugal_router_update_args* args) {
    Instance& s = self(instance);
    return guard(s.host, [&] {
      s.impl.update(read_sized_args(args, offsetof(frugal_router_update_args, expert_load) + sizeof(void*),
                                    "update: args"));
    });
  }

  static frugal_error* export_state(void* instance, void* buffer, size_t capacity, size_t* size) {
    Instance& s = self(instance);
    return guard(s.host, [&] { export_state_into(s.impl, buffer, capacity, size); });
  }

  static frugal_error* import_state(void* instance, const void* data, size_t size) {
    Instance& s = self(instance);
    return guard(s.host, [&] { import_state_from(s.impl, data, size); });
  }

  static frugal_route_move_args read_move(const frugal_route_move_args* args, const char* what) {
    return read_sized_args(args, offsetof(frugal_route_move_args, output) + sizeof(void*), what);
  }

  static constexpr frugal_router_vtable vtable{sizeof(frugal_router_vtable), &create,  &destroy, &layout,
                                               &route,  &permute, &combine, &update,  &export_state,
                                               &import_state};
};

template <typename Impl>
constexpr frugal_strategy_desc router_strategy(const char* name, const char* summary, uint32_t flags) {
  return frugal_strategy_desc{sizeof(frugal_strategy_desc), FRUGAL_KIND_ROUTER, flags, name, summary,
                              &RouterAdapter<Impl>::vtable, nullptr};
}

}  // namespace frugal::sdk
