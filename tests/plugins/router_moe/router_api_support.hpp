// Host plans for the router C API tests: every plan tensor a router's
// layout asks for, sized by frugal_router_plan_shape, behind one
// frugal_route_plan; and the calls the tests repeat.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "../quant_fp8/quant_api_support.hpp"
#include "frugal/sdk/host.hpp"

namespace frugal::test {

struct HostPlan {
  frugal_route_shape shape{};
  std::unique_ptr<HostTensor> expert_ids, weights, dropped, slot_row;  // token choice only
  std::unique_ptr<HostTensor> expert_offsets, expert_demand, row_token, row_weight, token_offsets, token_rows,
      mean_prob, losses;
  std::unique_ptr<HostTensor> ep_tokens, ep_rows;  // expert-parallel routers only
  frugal_route_plan plan{};

  HostPlan(const frugal_router* router, int64_t tokens);
  HostPlan(const HostPlan&) = delete;
  HostPlan& operator=(const HostPlan&) = delete;

  // A plan tensor's elements, e.g. values<int64_t>(*row_token).
  template <class T>
  static std::span<const T> values(const HostTensor& t) {
    return {reinterpret_cast<const T*>(t.bytes.data()), t.bytes.size() / sizeof(T)};
  }
};

// A context with the built-in router_moe plugin loaded.
host::ContextPtr router_context();

host::RouterPtr make_router(frugal_context* context, const char* name, const std::vector<Option>& options);

frugal_route_layout layout_of(const frugal_router* router);

// Routes `logits` into `plan`; throws host::Exception on error.
void route(frugal_router* router, const HostTensor& logits, HostPlan& plan);

// frugal_router_route's error for these logits (NULL on success).
frugal_error* try_route(frugal_router* router, const frugal_tensor& logits, HostPlan& plan);

// Permute or combine through the C API; throws host::Exception on error.
void permute(frugal_router* router, const HostPlan& plan, const HostTensor& input, HostTensor& output);
void combine(frugal_router* router, const HostPlan& plan, const HostTensor& input, HostTensor& output);

// Logits [tokens, experts] of `dtype` with rows padded by row_pad, from
// values drawn N(0, sigma) plus skew[e] per expert (experts past the end of
// skew get none).
std::unique_ptr<HostTensor> random_logits(int32_t dtype, int64_t tokens, int64_t experts, uint32_t seed,
                                          float sigma = 2.0f, int64_t row_pad = 0, const std::vector<float>& skew = {});

}  // namespace frugal::test
