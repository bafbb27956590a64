// frugal_router_*: router objects. Validation lives in router_core.cpp,
// plan_views.cpp and plan_check.cpp.
#include <fmt/format.h>

#include "context.hpp"
#include "error.hpp"
#include "frugal/router.h"
#include "router/router_core.hpp"
#include "sized_structs.hpp"

namespace {

// Every entry point but create and destroy: checks the router and the
// pointer arguments, then runs body.
template <class Body>
frugal_error* with_router(const char* fn, const frugal_router* router, Body&& body) {
  return frugal::guard(fn, [&] {
    frugal::require_non_null(router, fn, "router");
    body(*router->core);
  });
}

}  // namespace

extern "C" {

FRUGAL_API frugal_error* frugal_router_create(frugal_context* context, const char* name, const frugal_options* options,
                                              frugal_router** out) {
  return frugal::guard("frugal_router_create", [&] {
    frugal::require_non_null(out, "frugal_router_create", "out");
    auto resolved = frugal::resolve_strategy(context, FRUGAL_KIND_ROUTER, name);
    auto core = std::make_unique<frugal::routing::RouterCore>(resolved.plugin, *resolved.record, name);
    core->create_instance(options);
    *out = new frugal_router{std::move(core)};
  });
}

FRUGAL_API frugal_error* frugal_router_layout(const frugal_router* router, frugal_route_layout* out) {
  constexpr const char* kFn = "frugal_router_layout";
  return with_router(kFn, router, [&](const frugal::routing::RouterCore& core) {
    frugal::require_non_null(out, kFn, "out");
    frugal::write_sized(out, core.layout(), kFn);
  });
}

FRUGAL_API frugal_error* frugal_router_plan_shape(const frugal_router* router, int64_t tokens,
                                                  frugal_route_shape* out) {
  constexpr const char* kFn = "frugal_router_plan_shape";
  return with_router(kFn, router, [&](const frugal::routing::RouterCore& core) {
    frugal::require_non_null(out, kFn, "out");
    const frugal::routing::PlanShape s = core.plan_shape(tokens);
    frugal::write_sized(out, frugal_route_shape{sizeof(frugal_route_shape), s.tokens, s.capacity, s.max_rows}, kFn);
  });
}

FRUGAL_API frugal_error* frugal_router_route(frugal_router* router, const frugal_route_args* args) {
  constexpr const char* kFn = "frugal_router_route";
  return with_router(kFn, router, [&](frugal::routing::RouterCore& core) {
    frugal::require_non_null(args, kFn, "args");
    core.route(*args);
  });
}

FRUGAL_API frugal_error* frugal_router_permute(frugal_router* router, const frugal_route_move_args* args) {
  constexpr const char* kFn = "frugal_router_permute";
  return with_router(kFn, router, [&](frugal::routing::RouterCore& core) {
    frugal::require_non_null(args, kFn, "args");
    core.permute(*args);
  });
}

FRUGAL_API frugal_error* frugal_router_combine(frugal_router* router, const frugal_route_move_args* args) {
  constexpr const char* kFn = "frugal_router_combine";
  return with_router(kFn, router, [&](frugal::routing::RouterCore& core) {
    frugal::require_non_null(args, kFn, "args");
    core.combine(*args);
  });
}

FRUGAL_API frugal_error* frugal_router_update(frugal_router* router, const frugal_tensor* expert_load) {
  constexpr const char* kFn = "frugal_router_update";
  return with_router(kFn, router, [&](frugal::routing::RouterCore& core) {
    frugal::require_non_null(expert_load, kFn, "expert_load");
    core.update(expert_load);
  });
}

FRUGAL_API frugal_error* frugal_router_stats(const frugal_router* router, const frugal_route_plan* plan,
                                             frugal_route_stats* out) {
  constexpr const char* kFn = "frugal_router_stats";
  return with_router(kFn, router, [&](const frugal::routing::RouterCore& core) {
    frugal::require_non_null(plan, kFn, "plan");
    frugal::require_non_null(out, kFn, "out");
    frugal::write_sized(out, core.stats(plan), kFn);
  });
}

FRUGAL_API frugal_error* frugal_router_export_state(frugal_router* router, void* buffer, size_t capacity,
                                                    size_t* size) {
  constexpr const char* kFn = "frugal_router_export_state";
  return with_router(kFn, router, [&](frugal::routing::RouterCore& core) {
    frugal::require_non_null(size, kFn, "size");
    if (buffer == nullptr && capacity != 0)
      frugal::fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: buffer is NULL but capacity is {}", kFn, capacity);
    core.export_state(buffer, capacity, size);
  });
}

FRUGAL_API frugal_error* frugal_router_import_state(frugal_router* router, const void* data, size_t size) {
  constexpr const char* kFn = "frugal_router_import_state";
  return with_router(kFn, router, [&](frugal::routing::RouterCore& core) {
    if (size > 0) frugal::require_non_null(data, kFn, "data");
    core.import_state(data, size);
  });
}

FRUGAL_API frugal_error* frugal_router_ep_shape(const frugal_router* router, const frugal_route_plan* plan,
                                                frugal_route_ep_shape* out) {
  constexpr const char* kFn = "frugal_router_ep_shape";
  return with_router(kFn, router, [&](const frugal::routing::RouterCore& core) {
    frugal::require_non_null(out, kFn, "out");
    const frugal::routing::EpShape s = core.ep_shape_of(plan, -1);
    frugal::write_sized(
        out,
        frugal_route_ep_shape{sizeof(frugal_route_ep_shape), s.rank, s.ranks, s.first_expert, s.local_experts,
                              s.group_tokens, s.token_offset, s.sent_rows, s.received_rows},
        kFn);
  });
}

FRUGAL_API frugal_error* frugal_router_ep_dispatch(frugal_router* router, const frugal_route_dispatch_args* args) {
  constexpr const char* kFn = "frugal_router_ep_dispatch";
  return with_router(kFn, router, [&](frugal::routing::RouterCore& core) {
    frugal::require_non_null(args, kFn, "args");
    core.ep_dispatch(*args);
  });
}

FRUGAL_API frugal_error* frugal_router_ep_combine(frugal_router* router, const frugal_route_move_args* args) {
  constexpr const char* kFn = "frugal_router_ep_combine";
  return with_router(kFn, router, [&](frugal::routing::RouterCore& core) {
    frugal::require_non_null(args, kFn, "args");
    core.ep_combine(*args);
  });
}

FRUGAL_API void frugal_router_destroy(frugal_router* router) { delete router; }

}  // extern "C"
