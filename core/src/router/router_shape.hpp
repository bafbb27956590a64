// The shapes a router's plan takes for T tokens, derived from the layout
// alone, and the check of the layout a plugin reports. Internal to
// libfrugal.
#pragma once

#include <cstdint>
#include <string>

#include "frugal/router_vtable.h"

namespace frugal::routing {

struct PlanShape {
  int64_t tokens = 0;
  int64_t capacity = 0;  // rows per expert at most; 0 when dropless
  int64_t max_rows = 0;  // R
  int64_t slots = 0;     // T * top_k (token choice), 0 (expert choice)
};

// Formulas in frugal/router_vtable.h; expert-parallel layouts give the
// local bound (capacity 0: the group's is known at route). Fails with INVALID_ARGUMENT for
// tokens < 1 or a plan too large to index (R * anything must stay in int64).
PlanShape plan_shape(const frugal_route_layout& layout, int64_t tokens);

// The capacity of an expert-parallel group's plan (0 when dropless): the
// formula of plan_shape over the group's tokens.
int64_t group_capacity(const frugal_route_layout& layout, int64_t group_tokens);

// Fails with INTERNAL, naming `label`, when the plugin's layout is not one
// the core can size plans for.
void check_layout(const frugal_route_layout& layout, const std::string& label);

// "dropless", "by_probability", "by_position".
const char* drop_policy_name(int32_t policy);

}  // namespace frugal::routing
