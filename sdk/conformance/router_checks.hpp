// router_checks.hpp — the router rules that route real CPU logits and move
// activations through the plan (check_router.cpp), used by the router
// checks of check_stateful.cpp.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "frugal/router.h"
#include "strategy_checks.hpp"

namespace frugal::conformance {

// A route of `logits` into `plan`: the vtable's slot on an instance (a
// frugal_route_call), or libfrugal's (a frugal_route_args).
using RouteFn = std::function<frugal_error*(const frugal_tensor* logits, const frugal_route_plan* plan)>;

// The plan bytes of routing the kit's standard logits with `route`, for a
// router of layout `l`; empty with `error` set when the call fails.
std::vector<unsigned char> route_plan_bytes(const frugal_route_layout& l, const RouteFn& route, std::string& error);
// The bytes of routing the standard logits and moving activations through
// the plan (permute, combine) on `instance`: what later calls answer.
std::vector<unsigned char> route_result(const frugal_router_vtable* vt, void* instance);
// plan, combine, null-arguments (tensors), struct-size (args), determinism,
// thread-safety and core-parity on `a`, an instance fresh from create;
// then moves a's state (update with an uneven load) for the state rules.
void check_router_tensors(Checks& c, void* a);

}  // namespace frugal::conformance
