// The router's state through the C API: the DeepSeek-V3 bias moved by
// frugal_router_update exactly as the library's balancer, steering later
// routes; export / import round trips; corrupt or mismatched blobs refused
// with the state unchanged; concurrent routes and updates; balancing a
// skewed router end to end.
#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

#include "algorithms/bias_balancer.hpp"
#include "algorithms/deepseek_gate.hpp"
#include "router_api_support.hpp"
#include "test_helpers.hpp"

using namespace frugal::test;
namespace fr = frugal::router;

namespace {

const std::vector<Option> kDeepSeek = {{"experts", int64_t{16}}, {"k", int64_t{2}}, {"gamma", 0.01}};

void update(frugal_router* router, std::vector<int64_t> load) {
  HostTensor t(FRUGAL_DTYPE_INT64, {static_cast<int64_t>(load.size())});
  std::memcpy(t.bytes.data(), load.data(), load.size() * sizeof(int64_t));
  frugal::host::check(frugal_router_update(router, &t.view));
}

std::vector<std::byte> export_state(frugal_router* router) {
  size_t size = 0;
  frugal::host::check(frugal_router_export_state(router, nullptr, 0, &size));
  std::vector<std::byte> blob(size);
  frugal::host::check(frugal_router_export_state(router, blob.data(), blob.size(), &size));
  return blob;
}

std::vector<int64_t> demand_of(const HostPlan& plan) {
  const auto d = HostPlan::values<int64_t>(*plan.expert_demand);
  return {d.begin(), d.end()};
}

}  // namespace

TEST_CASE("router state: update moves the bias as the library's balancer, and routes follow it") {
  auto context = router_context();
  auto router = make_router(context.get(), "deepseek_v3", kDeepSeek);
  fr::BiasBalancer balancer(16, 0.01f);
  const auto logits = random_logits(FRUGAL_DTYPE_FLOAT32, 64, 16, 4);
  std::vector<float> values(static_cast<std::size_t>(64 * 16));
  std::memcpy(values.data(), logits->bytes.data(), values.size() * 4);
  fr::DeepSeekGateOptions o;
  o.k = 2;
  for (int step = 0; step < 5; ++step) {
    HostPlan plan(router.get(), 64);
    route(router.get(), *logits, plan);
    const fr::Routing want = fr::deepseek_v3_gate(fr::fp32_logits(values, 64, 16), balancer.bias(), o);
    const auto got = HostPlan::values<int32_t>(*plan.expert_ids);
    CHECK(std::vector<int32_t>(got.begin(), got.end()) == want.expert);
    update(router.get(), demand_of(plan));
    balancer.update(demand_of(plan));
  }
  CHECK(export_state(router.get()) == balancer.export_state());
}

TEST_CASE("router state: export / import round trip; corrupt and mismatched blobs leave the state as it was") {
  auto context = router_context();
  auto a = make_router(context.get(), "deepseek_v3", kDeepSeek);
  update(a.get(), {9, 0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  const std::vector<std::byte> blob = export_state(a.get());

  auto b = make_router(context.get(), "deepseek_v3", kDeepSeek);
  const std::vector<std::byte> fresh = export_state(b.get());
  REQUIRE(fresh != blob);
  frugal::host::check(frugal_router_import_state(b.get(), blob.data(), blob.size()));
  CHECK(export_state(b.get()) == blob);

  // Routes after the import equal the source router's.
  const auto logits = random_logits(FRUGAL_DTYPE_FLOAT32, 32, 16, 8);
  HostPlan pa(a.get(), 32), pb(b.get(), 32);
  route(a.get(), *logits, pa);
  route(b.get(), *logits, pb);
  CHECK(pa.expert_ids->bytes == pb.expert_ids->bytes);

  auto c = make_router(context.get(), "deepseek_v3", kDeepSeek);
  for (const std::size_t at : {std::size_t{0}, std::size_t{5}, blob.size() / 2, blob.size() - 1}) {
    INFO("byte " << at);
    std::vector<std::byte> bad = blob;
    bad[at] ^= std::byte{0x40};
    expect_error(frugal_router_import_state(c.get(), bad.data(), bad.size()), FRUGAL_ERR_INVALID_ARGUMENT,
                 {"import_state"});
    CHECK(export_state(c.get()) == fresh);
  }
  expect_error(frugal_router_import_state(c.get(), blob.data(), blob.size() - 3), FRUGAL_ERR_INVALID_ARGUMENT,
               {"import_state"});
  auto other_experts =
      make_router(context.get(), "deepseek_v3", {{"experts", int64_t{8}}, {"k", int64_t{2}}, {"gamma", 0.01}});
  expect_error(frugal_router_import_state(other_experts.get(), blob.data(), blob.size()), FRUGAL_ERR_INVALID_ARGUMENT,
               {"16 expert biases", "8 experts"});
  auto other_gamma = make_router(context.get(), "deepseek_v3", {{"experts", int64_t{16}}, {"k", int64_t{2}}});
  expect_error(frugal_router_import_state(other_gamma.get(), blob.data(), blob.size()), FRUGAL_ERR_INVALID_ARGUMENT,
               {"gamma"});

  // A too-small buffer reports the size it needs.
  size_t size = 0;
  std::vector<std::byte> small(blob.size() - 1);
  expect_error(frugal_router_export_state(a.get(), small.data(), small.size(), &size), FRUGAL_ERR_OUT_OF_RANGE,
               {"bytes"});
  CHECK(size == blob.size());
}

TEST_CASE("router state: stateless routers export nothing, ignore updates and refuse a blob") {
  auto context = router_context();
  for (const char* name : {"topk_softmax", "expert_choice"}) {
    INFO(name);
    auto router = make_router(context.get(), name, {{"experts", int64_t{4}}});
    CHECK(export_state(router.get()).empty());
    update(router.get(), {1, 2, 3, 4});
    CHECK(export_state(router.get()).empty());
    frugal::host::check(frugal_router_import_state(router.get(), nullptr, 0));
    const std::byte junk[4]{};
    expect_error(frugal_router_import_state(router.get(), junk, 4), FRUGAL_ERR_INVALID_ARGUMENT, {"keeps no state"});
  }
}

TEST_CASE("router state: bad loads are refused before the plugin sees them") {
  auto context = router_context();
  auto router = make_router(context.get(), "deepseek_v3", kDeepSeek);
  HostTensor wrong_count(FRUGAL_DTYPE_INT64, {15});
  std::memset(wrong_count.bytes.data(), 0, wrong_count.bytes.size());
  expect_error(frugal_router_update(router.get(), &wrong_count.view), FRUGAL_ERR_INVALID_ARGUMENT,
               {"expert_load", "16"});
  HostTensor wrong_type(FRUGAL_DTYPE_INT32, {16});
  expect_error(frugal_router_update(router.get(), &wrong_type.view), FRUGAL_ERR_INVALID_ARGUMENT, {"int64"});
  HostTensor negative(FRUGAL_DTYPE_INT64, {16});
  std::memset(negative.bytes.data(), 0, negative.bytes.size());
  const int64_t minus = -3;
  std::memcpy(negative.at(0, 4), &minus, 8);
  expect_error(frugal_router_update(router.get(), &negative.view), FRUGAL_ERR_INVALID_ARGUMENT,
               {"expert_load[4]", "-3"});
  expect_error(frugal_router_update(router.get(), nullptr), FRUGAL_ERR_INVALID_ARGUMENT, {"expert_load"});
  CHECK(export_state(router.get()) == fr::BiasBalancer(16, 0.01f).export_state());
}

TEST_CASE("router state: concurrent routes and updates; the final bias is the serial one") {
  auto context = router_context();
  auto router = make_router(context.get(), "deepseek_v3", kDeepSeek);
  const auto logits = random_logits(FRUGAL_DTYPE_BFLOAT16, 128, 16, 12);
  std::atomic<bool> failed{false};
  std::vector<std::thread> routers;
  for (int i = 0; i < 3; ++i) {
    routers.emplace_back([&] {
      for (int n = 0; n < 20; ++n) {
        HostPlan plan(router.get(), 128);
        if (frugal_error* e = try_route(router.get(), logits->view, plan)) {
          frugal_error_destroy(e);
          failed = true;
        }
      }
    });
  }
  fr::BiasBalancer serial(16, 0.01f);
  for (int n = 0; n < 40; ++n) {
    std::vector<int64_t> load(16, 8);
    load[static_cast<std::size_t>(n % 16)] = 40;
    update(router.get(), load);
    serial.update(load);
  }
  for (auto& t : routers) t.join();
  CHECK_FALSE(failed);
  CHECK(export_state(router.get()) == serial.export_state());
}

TEST_CASE("router state: a skewed DeepSeek-V3 router balances through the C API") {
  // The library test's setting (tests/plugins/router_moe/test_router_balancing.cpp):
  // 8192 tokens, 16 experts, top-2 in 4 groups of which 2 are kept, a
  // fixed skew rising to +2 on the last expert, gamma 0.002 (there: under
  // 1.1 first at step 52). Here with other random logits, through the C API.
  constexpr int64_t T = 8192, E = 16;
  std::vector<float> skew(E);
  for (int64_t e = 0; e < E; ++e) skew[static_cast<std::size_t>(e)] = 2.0f * static_cast<float>(e) / (E - 1);
  auto context = router_context();
  auto router = make_router(
      context.get(), "deepseek_v3",
      {{"experts", E}, {"k", int64_t{2}}, {"groups", int64_t{4}}, {"topk_groups", int64_t{2}}, {"gamma", 0.002}});
  double first = 0.0, last = 0.0;
  int balanced_at = -1;
  for (int step = 0; step < 70 && balanced_at < 0; ++step) {
    const auto logits = random_logits(FRUGAL_DTYPE_FLOAT32, T, E, 1000 + static_cast<uint32_t>(step), 1.0f, 0, skew);
    HostPlan plan(router.get(), T);
    route(router.get(), *logits, plan);
    frugal_route_stats s{};
    s.struct_size = sizeof(s);
    frugal::host::check(frugal_router_stats(router.get(), &plan.plan, &s));
    if (step == 0) first = s.max_over_mean;
    last = s.max_over_mean;
    if (s.max_over_mean < 1.1) balanced_at = step;
    update(router.get(), demand_of(plan));
  }
  INFO("max/mean " << first << " at step 0, " << last << " at step " << balanced_at);
  CHECK(first > 2.0);
  CHECK(balanced_at > 0);
  CHECK(balanced_at <= 65);
}
