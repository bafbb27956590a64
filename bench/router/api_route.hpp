// The C API's route for router_bench: the router_moe plugin through
// libfrugal, with the plan copied into host tensors and the core's
// host-plan check, so its time next to the library's shows what the ABI
// boundary and the check cost.
#pragma once

#include <cstdint>
#include <vector>

namespace frugal::bench {

// Median seconds of frugal_router_route for bf16 logits [tokens, experts]
// with `strategy` (options experts, k and threads), or a negative value
// (after printing why) when the plugin cannot be loaded or a call fails.
double api_route_seconds(const char* strategy, const std::vector<uint16_t>& logits, int64_t tokens, int64_t experts,
                         int64_t k, unsigned threads, int repeats);

}  // namespace frugal::bench
