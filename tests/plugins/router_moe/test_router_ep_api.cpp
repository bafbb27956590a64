// The expert-parallel calls of the router C API (ABI 2.4) in one process,
// over a comm_local group of one: the results equal the plain calls', and
// every bad argument is refused by the core, naming what is wrong, before
// any collective. Across ranks: ep_ranks.cpp under mpirun.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "router_api_support.hpp"
#include "test_helpers.hpp"

using namespace frugal::test;
namespace host = frugal::host;

namespace {

struct LocalGroup {
  host::ContextPtr context = router_context();
  host::CommPtr comm;
  LocalGroup() {
    host::check(frugal_context_load_plugin(context.get(), builtin_path("comm_local").c_str()));
    comm = host::make_comm(context.get(), "local", nullptr);
  }
};

host::RouterPtr ep_router(const LocalGroup& g, const char* strategy, const std::vector<Option>& options) {
  auto opts = make_quant_options(options);
  host::check(frugal_options_set_comm(opts.get(), "ep_comm", g.comm.get()));
  return host::make_router(g.context.get(), strategy, opts.get());
}

// frugal_error's code and message, the error destroyed.
std::pair<int32_t, std::string> take(frugal_error* e) {
  if (e == nullptr) return {0, ""};
  std::pair<int32_t, std::string> out{frugal_error_code(e), frugal_error_message(e)};
  frugal_error_destroy(e);
  return out;
}

frugal_route_ep_shape shape_of(frugal_router* router, const HostPlan& plan) {
  frugal_route_ep_shape s{};
  s.struct_size = sizeof(s);
  host::check(frugal_router_ep_shape(router, &plan.plan, &s));
  return s;
}

}  // namespace

TEST_CASE("a group of one: ep calls equal the plain ones, bit for bit") {
  const LocalGroup g;
  const int64_t T = 53, E = 6, H = 20;
  for (const auto& [strategy, options] : std::vector<std::pair<const char*, std::vector<Option>>>{
           {"topk_softmax", {{"experts", E}, {"k", int64_t{2}}, {"capacity_factor", 0.75}}},
           {"deepseek_v3", {{"experts", E}, {"k", int64_t{2}}, {"capacity_factor", 0.75}, {"drop_policy", "position"}}},
           {"expert_choice", {{"experts", E}, {"capacity_factor", 1.5}}}}) {
    INFO(strategy);
    auto plain = make_router(g.context.get(), strategy, options);
    auto ep = ep_router(g, strategy, options);
    const frugal_route_layout layout = layout_of(ep.get());
    CHECK(layout.ep_ranks == 1);
    CHECK(layout.ep_rank == 0);
    CHECK(layout_of(plain.get()).ep_ranks == 0);
    const auto logits = random_logits(FRUGAL_DTYPE_FLOAT32, T, E, 77);
    const auto x = random_logits(FRUGAL_DTYPE_FLOAT32, T, H, 78);
    HostPlan want(plain.get(), T);
    HostPlan got(ep.get(), T);
    route(plain.get(), *logits, want);
    route(ep.get(), *logits, got);
    CHECK(got.expert_offsets->bytes == want.expert_offsets->bytes);
    CHECK(got.expert_demand->bytes == want.expert_demand->bytes);
    const frugal_route_ep_shape s = shape_of(ep.get(), got);
    const auto kept = HostPlan::values<int64_t>(*want.expert_offsets)[static_cast<std::size_t>(E)];
    CHECK(s.ranks == 1);
    CHECK(s.first_expert == 0);
    CHECK(s.local_experts == E);
    CHECK(s.group_tokens == T);
    CHECK(s.token_offset == 0);
    CHECK(s.sent_rows == kept);
    CHECK(s.received_rows == kept);
    CHECK(HostPlan::values<int64_t>(*got.ep_tokens)[0] == T);

    HostTensor rows(FRUGAL_DTYPE_FLOAT32, {kept, H});
    HostTensor offsets(FRUGAL_DTYPE_INT64, {E + 1});
    HostTensor row_token(FRUGAL_DTYPE_INT64, {kept});
    const frugal_route_dispatch_args d{sizeof(d),     &got.plan,       &x->view, &rows.view,
                                       &offsets.view, &row_token.view, nullptr};
    host::check(frugal_router_ep_dispatch(ep.get(), &d));
    HostTensor permuted(FRUGAL_DTYPE_FLOAT32, {want.shape.max_rows, H});
    permute(plain.get(), want, *x, permuted);
    CHECK(std::memcmp(rows.bytes.data(), permuted.bytes.data(), rows.bytes.size()) == 0);
    CHECK(offsets.bytes == want.expert_offsets->bytes);
    CHECK(std::memcmp(row_token.bytes.data(), want.row_token->bytes.data(), row_token.bytes.size()) == 0);

    HostTensor out(FRUGAL_DTYPE_FLOAT32, {T, H});
    const frugal_route_move_args m{sizeof(m), &got.plan, &rows.view, &out.view, nullptr};
    host::check(frugal_router_ep_combine(ep.get(), &m));
    HostTensor combined(FRUGAL_DTYPE_FLOAT32, {T, H});
    combine(plain.get(), want, permuted, combined);
    CHECK(out.bytes == combined.bytes);
  }
}

TEST_CASE("the ep calls refuse bad arguments, naming them") {
  const LocalGroup g;
  const int64_t T = 16, E = 4, H = 8;
  auto plain = make_router(g.context.get(), "topk_softmax", {{"experts", E}, {"k", int64_t{2}}});
  auto ep = ep_router(g, "topk_softmax", {{"experts", E}, {"k", int64_t{2}}});
  const auto logits = random_logits(FRUGAL_DTYPE_FLOAT32, T, E, 5);
  const auto x = random_logits(FRUGAL_DTYPE_FLOAT32, T, H, 6);
  HostPlan plan(ep.get(), T);
  route(ep.get(), *logits, plan);
  const frugal_route_ep_shape s = shape_of(ep.get(), plan);
  HostTensor rows(FRUGAL_DTYPE_FLOAT32, {s.received_rows, H});
  HostTensor out(FRUGAL_DTYPE_FLOAT32, {T, H});

  SECTION("a router without ep_comm") {
    HostPlan p(plain.get(), T);
    route(plain.get(), *logits, p);
    frugal_route_ep_shape shape{};
    shape.struct_size = sizeof(shape);
    const auto [code, message] = take(frugal_router_ep_shape(plain.get(), &p.plan, &shape));
    CHECK(code == FRUGAL_ERR_FAILED_PRECONDITION);
    CHECK(message.find("ep_comm") != std::string::npos);
  }
  SECTION("a plan of ABI 2.3, without the ep members") {
    HostPlan p(ep.get(), T);
    p.plan.struct_size = FRUGAL_ROUTE_PLAN_V2_3_SIZE;
    const auto [code, message] = take(try_route(ep.get(), logits->view, p));
    CHECK(code == FRUGAL_ERR_ABI_MISMATCH);
    CHECK(message.find("ep_tokens") != std::string::npos);
  }
  SECTION("ep_rows of the wrong size") {
    HostPlan p(ep.get(), T);
    HostTensor short_rows(FRUGAL_DTYPE_INT64, {E - 1});
    p.plan.ep_rows = &short_rows.view;
    const auto [code, message] = take(try_route(ep.get(), logits->view, p));
    CHECK(code == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK(message.find("plan.ep_rows") != std::string::npos);
  }
  SECTION("a plan of another step (its token count)") {
    auto fewer = random_logits(FRUGAL_DTYPE_FLOAT32, T - 1, H, 9);
    const frugal_route_dispatch_args d{sizeof(d), &plan.plan, &fewer->view, &rows.view, nullptr, nullptr, nullptr};
    const auto [code, message] = take(frugal_router_ep_dispatch(ep.get(), &d));
    CHECK(code == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK(message.find("ep_tokens") != std::string::npos);
  }
  SECTION("a tampered ep_rows") {
    int64_t* r = reinterpret_cast<int64_t*>(plan.ep_rows->bytes.data());
    r[0] = T + 1;  // more rows than the rank has tokens
    const frugal_route_dispatch_args d{sizeof(d), &plan.plan, &x->view, &rows.view, nullptr, nullptr, nullptr};
    const auto [code, message] = take(frugal_router_ep_dispatch(ep.get(), &d));
    CHECK(code == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK(message.find("plan.ep_rows[0, 0]") != std::string::npos);
  }
  SECTION("an output of the wrong size, or missing") {
    HostTensor wrong(FRUGAL_DTYPE_FLOAT32, {s.received_rows + 1, H});
    const frugal_route_dispatch_args d{sizeof(d), &plan.plan, &x->view, &wrong.view, nullptr, nullptr, nullptr};
    const auto [code, message] = take(frugal_router_ep_dispatch(ep.get(), &d));
    CHECK(code == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK(message.find("frugal_router_ep_shape") != std::string::npos);
    const frugal_route_dispatch_args none{sizeof(none), &plan.plan, &x->view, nullptr, nullptr, nullptr, nullptr};
    CHECK(take(frugal_router_ep_dispatch(ep.get(), &none)).first == FRUGAL_ERR_INVALID_ARGUMENT);
  }
  SECTION("index outputs of the wrong size or dtype") {
    HostTensor offsets(FRUGAL_DTYPE_INT64, {E});  // one short
    const frugal_route_dispatch_args d{sizeof(d), &plan.plan, &x->view, &rows.view, &offsets.view, nullptr, nullptr};
    const auto [code, message] = take(frugal_router_ep_dispatch(ep.get(), &d));
    CHECK(code == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK(message.find("expert_offsets") != std::string::npos);
    HostTensor tokens(FRUGAL_DTYPE_INT32, {s.received_rows});
    const frugal_route_dispatch_args t{sizeof(t), &plan.plan, &x->view, &rows.view, nullptr, &tokens.view, nullptr};
    CHECK(take(frugal_router_ep_dispatch(ep.get(), &t)).first == FRUGAL_ERR_INVALID_ARGUMENT);
  }
  SECTION("combine: rows of another dtype or hidden size") {
    HostTensor bf16(FRUGAL_DTYPE_BFLOAT16, {s.received_rows, H});
    const frugal_route_move_args m{sizeof(m), &plan.plan, &bf16.view, &out.view, nullptr};
    const auto [code, message] = take(frugal_router_ep_combine(ep.get(), &m));
    CHECK(code == FRUGAL_ERR_INVALID_ARGUMENT);
    CHECK(message.find("dtype") != std::string::npos);
    HostTensor narrow(FRUGAL_DTYPE_FLOAT32, {s.received_rows, H - 1});
    const frugal_route_move_args n{sizeof(n), &plan.plan, &narrow.view, &out.view, nullptr};
    CHECK(take(frugal_router_ep_combine(ep.get(), &n)).first == FRUGAL_ERR_INVALID_ARGUMENT);
  }
  SECTION("a group larger than the experts") {
    auto opts = make_quant_options({{"experts", int64_t{1}}, {"k", int64_t{1}}});
    host::check(frugal_options_set_comm(opts.get(), "ep_comm", g.comm.get()));
    // One rank owns the one expert: accepted; the refusal needs W > E, which
    // a group of one cannot show (ep_ranks.cpp's failure mode covers peers).
    auto one = host::make_router(g.context.get(), "topk_softmax", opts.get());
    CHECK(layout_of(one.get()).ep_ranks == 1);
  }
}
