#include "router_api_support.hpp"

#include <random>

#include "formats/half.hpp"
#include "test_helpers.hpp"

namespace frugal::test {

HostPlan::HostPlan(const frugal_router* router, int64_t tokens) {
  shape.struct_size = sizeof(shape);
  host::check(frugal_router_plan_shape(router, tokens, &shape));
  const frugal_route_layout layout = layout_of(router);
  const int64_t T = tokens;
  const int64_t E = layout.experts;
  const int64_t R = shape.max_rows;
  const auto make = [](int32_t dtype, std::vector<int64_t> dims) { return std::make_unique<HostTensor>(dtype, dims); };
  plan.struct_size = sizeof(plan);
  if (layout.choice == FRUGAL_ROUTER_TOKEN_CHOICE) {
    const int64_t k = layout.top_k;
    expert_ids = make(FRUGAL_DTYPE_INT32, {T, k});
    weights = make(FRUGAL_DTYPE_FLOAT32, {T, k});
    dropped = make(FRUGAL_DTYPE_UINT8, {T, k});
    slot_row = make(FRUGAL_DTYPE_INT64, {T, k});
    plan.expert_ids = &expert_ids->view;
    plan.weights = &weights->view;
    plan.dropped = &dropped->view;
    plan.slot_row = &slot_row->view;
  }
  expert_offsets = make(FRUGAL_DTYPE_INT64, {E + 1});
  expert_demand = make(FRUGAL_DTYPE_INT64, {E});
  row_token = make(FRUGAL_DTYPE_INT64, {R});
  row_weight = make(FRUGAL_DTYPE_FLOAT32, {R});
  token_offsets = make(FRUGAL_DTYPE_INT64, {T + 1});
  token_rows = make(FRUGAL_DTYPE_INT64, {R});
  mean_prob = make(FRUGAL_DTYPE_FLOAT32, {E});
  losses = make(FRUGAL_DTYPE_FLOAT32, {2});
  plan.expert_offsets = &expert_offsets->view;
  plan.expert_demand = &expert_demand->view;
  plan.row_token = &row_token->view;
  plan.row_weight = &row_weight->view;
  plan.token_offsets = &token_offsets->view;
  plan.token_rows = &token_rows->view;
  plan.mean_prob = &mean_prob->view;
  plan.losses = &losses->view;
  if (layout.ep_ranks > 0) {
    ep_tokens = make(FRUGAL_DTYPE_INT64, {layout.ep_ranks});
    ep_rows = make(FRUGAL_DTYPE_INT64, {layout.ep_ranks, E});
    plan.ep_tokens = &ep_tokens->view;
    plan.ep_rows = &ep_rows->view;
  }
}

host::ContextPtr router_context() {
  auto context = host::make_context();
  host::check(frugal_context_load_plugin(context.get(), builtin_path("router_moe").c_str()));
  return context;
}

host::RouterPtr make_router(frugal_context* context, const char* name, const std::vector<Option>& options) {
  const auto opts = make_quant_options(options);
  return host::make_router(context, name, opts.get());
}

frugal_route_layout layout_of(const frugal_router* router) {
  frugal_route_layout layout{};
  layout.struct_size = sizeof(layout);
  host::check(frugal_router_layout(router, &layout));
  return layout;
}

frugal_error* try_route(frugal_router* router, const frugal_tensor& logits, HostPlan& plan) {
  const frugal_route_args args{sizeof(frugal_route_args), &logits, &plan.plan, nullptr};
  return frugal_router_route(router, &args);
}

void route(frugal_router* router, const HostTensor& logits, HostPlan& plan) {
  host::check(try_route(router, logits.view, plan));
}

void permute(frugal_router* router, const HostPlan& plan, const HostTensor& input, HostTensor& output) {
  const frugal_route_move_args args{sizeof(frugal_route_move_args), &plan.plan, &input.view, &output.view, nullptr};
  host::check(frugal_router_permute(router, &args));
}

void combine(frugal_router* router, const HostPlan& plan, const HostTensor& input, HostTensor& output) {
  const frugal_route_move_args args{sizeof(frugal_route_move_args), &plan.plan, &input.view, &output.view, nullptr};
  host::check(frugal_router_combine(router, &args));
}

std::unique_ptr<HostTensor> random_logits(int32_t dtype, int64_t tokens, int64_t experts, uint32_t seed, float sigma,
                                          int64_t row_pad, const std::vector<float>& skew) {
  auto t = std::make_unique<HostTensor>(dtype, std::vector<int64_t>{tokens, experts}, row_pad);
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, sigma);
  for (int64_t r = 0; r < tokens; ++r) {
    for (int64_t e = 0; e < experts; ++e) {
      const float v =
          dist(rng) + (static_cast<std::size_t>(e) < skew.size() ? skew[static_cast<std::size_t>(e)] : 0.0f);
      uint8_t* at = t->at(r, e);
      if (dtype == FRUGAL_DTYPE_FLOAT32) {
        std::memcpy(at, &v, 4);
      } else {
        const uint16_t bits = dtype == FRUGAL_DTYPE_BFLOAT16 ? quant::fp32_to_bf16(v) : quant::fp32_to_fp16(v);
        std::memcpy(at, &bits, 2);
      }
    }
  }
  return t;
}

}  // namespace frugal::test
