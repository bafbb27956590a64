// frugal/sdk/router_adapter.hpp — declare a router strategy as a plain C++
// class. The class needs:
//   explicit Impl(const frugal::sdk::Options& options);      // validate, throw PluginError
//   frugal_route_layout layout() const;                      // every field but struct_size
//   void route(const frugal_route_call& args);
//   void permute(const frugal_route_move_call& args);
//   void combine(const frugal_route_move_call& args);
//   void update(const frugal_router_update_call& args);       // a no-op for routers without a bias
//   std::vector<std::byte> export_state() const;              // empty: no state
//   void import_state(std::span<const std::byte> blob);       // leave the state as it was on error
// and, for routers that can split their experts over ranks (layout's
// ep_ranks > 0, ABI 2.4), both of:
//   void ep_dispatch(const frugal_route_dispatch_call& args);
//   void ep_combine(const frugal_route_move_call& args);
// (without them the vtable's ep slots are NULL, which the core accepts for
// routers that report no expert-parallel group).
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
#include <string>

#include "frugal/router_vtable.h"
#include "frugal/sdk/instance_slots.hpp"
#include "frugal/sdk/plugin_support.hpp"

namespace frugal::sdk {

template <typename Impl>
struct RouterAdapter : InstanceSlots<Impl> {
  using Base = InstanceSlots<Impl>;

  static frugal_error* route(void* instance, const frugal_route_call* args) {
    return Base::call(instance, [&](Impl& impl) {
      const frugal_route_call a =
          read_sized_args(args, offsetof(frugal_route_call, plan) + sizeof(void*), "route: args");
      require(a.logits, "route: args->logits");
      require(a.plan, "route: args->plan");
      impl.route(a);
    });
  }

  static frugal_error* permute(void* instance, const frugal_route_move_call* args) {
    return Base::call(instance, [&](Impl& impl) { impl.permute(read_move(args, "permute: args")); });
  }

  static frugal_error* combine(void* instance, const frugal_route_move_call* args) {
    return Base::call(instance, [&](Impl& impl) { impl.combine(read_move(args, "combine: args")); });
  }

  static frugal_error* update(void* instance, const frugal_router_update_call* args) {
    return Base::call(instance, [&](Impl& impl) {
      impl.update(
          read_sized_args(args, offsetof(frugal_router_update_call, expert_load) + sizeof(void*), "update: args"));
    });
  }

  static constexpr bool kExpertParallel =
      requires(Impl & impl, const frugal_route_dispatch_call& d, const frugal_route_move_call& m) {
    impl.ep_dispatch(d);
    impl.ep_combine(m);
  };

  static frugal_error* ep_dispatch(void* instance, const frugal_route_dispatch_call* args) {
    return Base::call(instance, [&](Impl& impl) {
      const frugal_route_dispatch_call a =
          read_sized_args(args, offsetof(frugal_route_dispatch_call, output) + sizeof(void*), "ep_dispatch: args");
      require(a.plan, "ep_dispatch: args->plan");
      require(a.input, "ep_dispatch: args->input");
      require(a.output, "ep_dispatch: args->output");
      impl.ep_dispatch(a);
    });
  }

  static frugal_error* ep_combine(void* instance, const frugal_route_move_call* args) {
    return Base::call(instance, [&](Impl& impl) { impl.ep_combine(read_move(args, "ep_combine: args")); });
  }

  // The slots, or NULL for an Impl without them (taking their address would
  // instantiate bodies that call members Impl lacks).
  static constexpr auto ep_dispatch_slot() -> frugal_error* (*)(void*, const frugal_route_dispatch_call*) {
    if constexpr (kExpertParallel) return &ep_dispatch;
    return nullptr;
  }
  static constexpr auto ep_combine_slot() -> frugal_error* (*)(void*, const frugal_route_move_call*) {
    if constexpr (kExpertParallel) return &ep_combine;
    return nullptr;
  }

  static frugal_route_move_call read_move(const frugal_route_move_call* args, const char* what) {
    const frugal_route_move_call a =
        read_sized_args(args, offsetof(frugal_route_move_call, output) + sizeof(void*), what);
    require(a.plan, what, "->plan");
    require(a.input, what, "->input");
    require(a.output, what, "->output");
    return a;
  }

  // The header's "never NULL" members: the core never passes NULL, but a
  // host calling the vtable directly may, and that must be an error rather
  // than a crash inside Impl.
  static void require(const void* member, const char* what, const char* suffix = "") {
    if (member == nullptr) throw PluginError(FRUGAL_ERR_INVALID_ARGUMENT, std::string(what) + suffix + " is NULL");
  }

  static constexpr frugal_router_vtable vtable{sizeof(frugal_router_vtable),
                                               &Base::create,
                                               &Base::destroy,
                                               &Base::template layout<frugal_route_layout>,
                                               &route,
                                               &permute,
                                               &combine,
                                               &update,
                                               &Base::export_state,
                                               &Base::import_state,
                                               ep_dispatch_slot(),
                                               ep_combine_slot()};
};

// ext: the descriptor's extension chain, e.g. options_ext<kOptions>() (option_decl.hpp).
template <typename Impl>
constexpr frugal_strategy_desc router_strategy(const char* name, const char* summary, uint32_t flags,
                                               const frugal_ext_header* ext = nullptr) {
  return frugal_strategy_desc{
      sizeof(frugal_strategy_desc), FRUGAL_KIND_ROUTER, flags, name, summary, &RouterAdapter<Impl>::vtable, ext};
}

}  // namespace frugal::sdk
