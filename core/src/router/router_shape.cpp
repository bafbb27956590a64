#include "router/router_shape.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "error.hpp"

namespace frugal::routing {
namespace {

constexpr int64_t kMaxExperts = int64_t{1} << 20;
// Tokens per call at most: T * top_k and T * E stay far below 2^63 and
// every count is exact in the double the capacity formula uses.
constexpr int64_t kMaxTokens = int64_t{1} << 32;

// ceil(n * factor / experts), clamped to [1, limit]: the plugin's formula
// (computed in double, so a factor with a short binary expansion gives the
// exact ceiling).
int64_t capacity_of(int64_t n, double factor, int64_t experts, int64_t limit) {
  const double c = std::ceil(static_cast<double>(n) * factor / static_cast<double>(experts));
  return std::clamp<int64_t>(static_cast<int64_t>(std::min(c, 9.0e18)), 1, std::max<int64_t>(1, limit));
}

}  // namespace

const char* drop_policy_name(int32_t policy) {
  switch (policy) {
    case FRUGAL_ROUTER_DROPLESS: return "dropless";
    case FRUGAL_ROUTER_DROP_BY_PROBABILITY: return "by_probability";
    case FRUGAL_ROUTER_DROP_BY_POSITION: return "by_position";
    default: return "unknown drop policy";
  }
}

PlanShape plan_shape(const frugal_route_layout& l, int64_t tokens) {
  if (tokens < 1 || tokens > kMaxTokens)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "tokens {}: a plan holds 1 to {} tokens", tokens, kMaxTokens);
  const int64_t E = l.experts;
  PlanShape s;
  s.tokens = tokens;
  if (l.ep_ranks > 0) {
    // The capacity is the group's, known at route: size for the bound.
    if (l.choice == FRUGAL_ROUTER_EXPERT_CHOICE) {
      s.max_rows = E * tokens;
    } else {
      s.slots = tokens * l.top_k;
      s.max_rows = s.slots;
    }
    return s;
  }
  if (l.choice == FRUGAL_ROUTER_EXPERT_CHOICE) {
    s.capacity = std::min(tokens, capacity_of(tokens, l.capacity_factor, E, tokens));
    s.max_rows = E * s.capacity;
    return s;
  }
  s.slots = tokens * l.top_k;
  if (l.drop_policy == FRUGAL_ROUTER_DROPLESS) {
    s.max_rows = s.slots;
    return s;
  }
  s.capacity = capacity_of(s.slots, l.capacity_factor, E, s.slots);
  s.max_rows = std::min(s.slots, E * s.capacity);
  return s;
}

void check_layout(const frugal_route_layout& l, const std::string& label) {
  const auto bad = [&](const std::string& what) {
    fail(FRUGAL_ERR_INTERNAL, "{}: the plugin reported an invalid layout: {}", label, what);
  };
  if (l.experts < 1 || l.experts > kMaxExperts) bad(fmt::format("{} experts (1 to {})", l.experts, kMaxExperts));
  const bool dropping = l.drop_policy != FRUGAL_ROUTER_DROPLESS;
  switch (l.choice) {
    case FRUGAL_ROUTER_TOKEN_CHOICE:
      if (l.top_k < 1 || l.top_k > l.experts) bad(fmt::format("top_k {} for {} experts", l.top_k, l.experts));
      if (l.drop_policy < FRUGAL_ROUTER_DROPLESS || l.drop_policy > FRUGAL_ROUTER_DROP_BY_POSITION)
        bad(fmt::format("drop policy {}", l.drop_policy));
      break;
    case FRUGAL_ROUTER_EXPERT_CHOICE:
      if (l.top_k != 0) bad(fmt::format("top_k {} for expert choice (must be 0)", l.top_k));
      if (dropping) bad(fmt::format("drop policy {} for expert choice (must be dropless)", l.drop_policy));
      break;
    default: bad(fmt::format("choice {}", l.choice));
  }
  const bool needs_factor = dropping || l.choice == FRUGAL_ROUTER_EXPERT_CHOICE;
  if (needs_factor && !(std::isfinite(l.capacity_factor) && l.capacity_factor > 0.0))
    bad(fmt::format("capacity factor {} with {} (must be > 0 and finite)", l.capacity_factor,
                    l.choice == FRUGAL_ROUTER_EXPERT_CHOICE ? "expert choice" : drop_policy_name(l.drop_policy)));
  if (!needs_factor && l.capacity_factor != 0.0)
    bad(fmt::format("capacity factor {} while dropless (must be 0)", l.capacity_factor));
  if ((l.flags & ~FRUGAL_ROUTE_LAYOUT_BIAS) != 0) bad(fmt::format("unknown flags {:#x}", l.flags));
  if (l.ep_ranks < 0 || l.ep_ranks > l.experts)
    bad(fmt::format("ep_ranks {} for {} experts (0, or 1 to the experts)", l.ep_ranks, l.experts));
  if (l.ep_ranks > 0 ? (l.ep_rank < 0 || l.ep_rank >= l.ep_ranks) : l.ep_rank != 0)
    bad(fmt::format("ep_rank {} of {} ranks", l.ep_rank, l.ep_ranks));
}

int64_t group_capacity(const frugal_route_layout& l, int64_t group_tokens) {
  frugal_route_layout single = l;
  single.ep_rank = 0;
  single.ep_ranks = 0;
  return plan_shape(single, group_tokens).capacity;
}

}  // namespace frugal::routing
