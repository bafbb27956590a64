// Expert parallelism across ranks, run under mpirun (CMakeLists.txt):
//   ep_ranks equal     every router x drop policy x expert count: the group's
//                      route + ep_dispatch + ep_combine equal, bit for bit,
//                      one router without a group on the concatenated tokens
//                      of every rank (ids, weights, drops, demand, the rows
//                      each expert receives and their order, the combined
//                      outputs); P_i and the losses equal on every rank and
//                      within rounding of the single router's
//   ep_ranks bias      deepseek_v3: 100 steps of route + update, each on new
//                      logits; the bias equal on every rank and to the single
//                      router's after every step
//   ep_ranks failure   one rank's logits hold a NaN: it gets its own error,
//                      every other rank a CANCELLED naming it, at once
// Each rank routes a different number of tokens; every rank builds every
// rank's inputs from seeds, so the single router runs on each rank too.
// test_helpers.cpp (builtin_path, random data) uses Catch's assertions; the
// implementation is compiled here, with this file's own main.
#define CATCH_CONFIG_RUNNER
#include <mpi.h>
#include <catch2/catch.hpp>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "router_api_support.hpp"
#include "test_helpers.hpp"

using namespace frugal::test;
namespace host = frugal::host;

namespace {

int g_rank = 0;
int g_ranks = 1;
int g_failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "rank %d: FAILED: %s\n", g_rank, what.c_str());
    ++g_failures;
  }
}

constexpr int64_t kHidden = 24;

int64_t tokens_of(int rank) { return 37 + 29 * rank; }  // unequal on purpose

struct Case {
  const char* strategy;
  std::vector<Option> options;
};

// The rank's tokens and the group's, as concatenated logits and activations.
struct Inputs {
  std::unique_ptr<HostTensor> logits, x;  // this rank's
  std::unique_ptr<HostTensor> all_logits, all_x;
  int64_t offset = 0, group = 0;
};

template <class T>
std::span<const T> view(const HostTensor& t) {
  return {reinterpret_cast<const T*>(t.bytes.data()), t.bytes.size() / sizeof(T)};
}
template <class T>
std::span<T> view_mut(HostTensor& t) {
  return {reinterpret_cast<T*>(t.bytes.data()), t.bytes.size() / sizeof(T)};
}

// Every rank's logits from seed + rank; activations likewise; stacked.
Inputs make_inputs(int64_t experts, uint32_t seed, int32_t act_dtype) {
  Inputs in;
  for (int r = 0; r < g_ranks; ++r) in.group += tokens_of(r);
  for (int r = 0; r < g_rank; ++r) in.offset += tokens_of(r);
  in.all_logits = std::make_unique<HostTensor>(FRUGAL_DTYPE_FLOAT32, std::vector<int64_t>{in.group, experts});
  in.all_x = std::make_unique<HostTensor>(act_dtype, std::vector<int64_t>{in.group, kHidden});
  const std::size_t x_elem = act_dtype == FRUGAL_DTYPE_FLOAT32 ? 4 : 2;
  int64_t at = 0;
  for (int r = 0; r < g_ranks; ++r) {
    const int64_t T = tokens_of(r);
    auto logits =
        random_logits(FRUGAL_DTYPE_FLOAT32, T, experts, seed + 101 * static_cast<uint32_t>(r), 1.5f, 0, {0.8f, 0.4f});
    auto x = random_logits(FRUGAL_DTYPE_FLOAT32, T, kHidden, seed + 7919 + static_cast<uint32_t>(r));
    std::memcpy(in.all_logits->bytes.data() + at * experts * 4, logits->payload().data(),
                static_cast<std::size_t>(T * experts * 4));
    const std::vector<uint8_t> xs = x->payload();
    for (int64_t i = 0; i < T * kHidden; ++i) {
      float v = 0;
      std::memcpy(&v, xs.data() + i * 4, 4);
      if (x_elem == 4) {
        std::memcpy(in.all_x->bytes.data() + (at * kHidden + i) * 4, &v, 4);
      } else {
        const auto bits = static_cast<uint16_t>(std::bit_cast<uint32_t>(v) >> 16);  // any bf16 will do
        std::memcpy(in.all_x->bytes.data() + (at * kHidden + i) * 2, &bits, 2);
      }
    }
    if (r == g_rank) {
      in.logits = std::move(logits);
      in.x = std::make_unique<HostTensor>(act_dtype, std::vector<int64_t>{T, kHidden});
      std::memcpy(in.x->bytes.data(), in.all_x->bytes.data() + at * kHidden * static_cast<int64_t>(x_elem),
                  static_cast<std::size_t>(T * kHidden) * x_elem);
    }
    at += T;
  }
  return in;
}

// The host's "expert": row * (1 + (e + 1) / 8) in the rows' dtype, the same
// arithmetic wherever the row is.
void run_experts(HostTensor& rows, std::span<const int64_t> offsets, int64_t first_expert) {
  const bool f32 = rows.view.dtype == FRUGAL_DTYPE_FLOAT32;
  for (std::size_t j = 0; j + 1 < offsets.size(); ++j) {
    const float scale = 1.0f + static_cast<float>(first_expert + static_cast<int64_t>(j) + 1) / 8.0f;
    for (int64_t r = offsets[j]; r < offsets[j + 1]; ++r)
      for (int64_t c = 0; c < kHidden; ++c) {
        uint8_t* p = rows.at(r, c);
        if (f32) {
          float v = 0;
          std::memcpy(&v, p, 4);
          v *= scale;
          std::memcpy(p, &v, 4);
        } else {
          uint16_t b = 0;
          std::memcpy(&b, p, 2);
          const float v = std::bit_cast<float>(static_cast<uint32_t>(b) << 16) * scale;
          b = static_cast<uint16_t>(std::bit_cast<uint32_t>(v) >> 16);  // truncation: deterministic
          std::memcpy(p, &b, 2);
        }
      }
  }
}

struct Group {
  host::ContextPtr context;
  host::CommPtr comm;
};

Group make_group() {
  Group g{router_context(), nullptr};
  host::check(frugal_context_load_plugin(g.context.get(), builtin_path("comm_mpi").c_str()));
  g.comm = host::make_comm(g.context.get(), "mpi", nullptr);
  host::check(frugal_comm_set_timeout(g.comm.get(), 30000));
  return g;
}

host::RouterPtr make_ep_router(const Group& g, const Case& c, frugal_comm* comm) {
  auto options = make_quant_options(c.options);
  if (comm != nullptr) host::check(frugal_options_set_comm(options.get(), "ep_comm", comm));
  return host::make_router(g.context.get(), c.strategy, options.get());
}

bool same_bytes(const void* a, const void* b, std::size_t n) { return n == 0 || std::memcmp(a, b, n) == 0; }

// Every rank's copy of `bytes` equals rank 0's.
bool same_on_all_ranks(const std::vector<uint8_t>& bytes) {
  uint64_t h = 1469598103934665603ull;
  for (const uint8_t b : bytes) h = (h ^ b) * 1099511628211ull;
  std::vector<uint64_t> all(static_cast<std::size_t>(g_ranks));
  MPI_Allgather(&h, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  for (const uint64_t x : all)
    if (x != all[0]) return false;
  return true;
}

std::vector<uint8_t> bytes_of(const HostTensor& t) { return t.payload(); }

void check_case(const Group& g, const Case& c, int32_t act_dtype, uint32_t seed) {
  const std::string name =
      std::string(c.strategy) + " " + std::to_string(seed) + (act_dtype == FRUGAL_DTYPE_FLOAT32 ? " f32" : " bf16");
  auto single = make_ep_router(g, c, nullptr);
  auto ep = make_ep_router(g, c, g.comm.get());
  const frugal_route_layout layout = layout_of(ep.get());
  const int64_t E = layout.experts;
  expect(layout.ep_ranks == g_ranks && layout.ep_rank == g_rank, name + ": layout names the group");
  const Inputs in = make_inputs(E, seed, act_dtype);
  const int64_t T = tokens_of(g_rank);

  // The single router on every rank's tokens.
  HostPlan ref(single.get(), in.group);
  route(single.get(), *in.all_logits, ref);
  HostTensor ref_rows(act_dtype, {ref.shape.max_rows, kHidden});
  permute(single.get(), ref, *in.all_x, ref_rows);
  const std::span<const int64_t> ref_off = HostPlan::values<int64_t>(*ref.expert_offsets);
  HostTensor ref_y_rows(act_dtype, {ref.shape.max_rows, kHidden});
  std::memcpy(ref_y_rows.bytes.data(), ref_rows.bytes.data(), ref_rows.bytes.size());
  run_experts(ref_y_rows, ref_off, 0);
  HostTensor ref_out(act_dtype, {in.group, kHidden});
  combine(single.get(), ref, ref_y_rows, ref_out);

  // The group.
  HostPlan plan(ep.get(), T);
  route(ep.get(), *in.logits, plan);
  frugal_route_ep_shape shape{};
  shape.struct_size = sizeof(shape);
  host::check(frugal_router_ep_shape(ep.get(), &plan.plan, &shape));
  expect(shape.group_tokens == in.group && shape.token_offset == in.offset, name + ": group tokens and offset");
  const std::span<const int64_t> demand = HostPlan::values<int64_t>(*plan.expert_demand);
  const std::span<const int64_t> ref_demand = HostPlan::values<int64_t>(*ref.expert_demand);
  expect(std::equal(demand.begin(), demand.end(), ref_demand.begin()), name + ": expert_demand is the group's");
  if (layout.choice == FRUGAL_ROUTER_TOKEN_CHOICE) {
    const int64_t k = layout.top_k;
    const auto at = static_cast<std::size_t>(in.offset * k);
    const auto n = static_cast<std::size_t>(T * k);
    expect(same_bytes(plan.expert_ids->bytes.data(), ref.expert_ids->bytes.data() + at * 4, n * 4),
           name + ": expert ids");
    expect(same_bytes(plan.weights->bytes.data(), ref.weights->bytes.data() + at * 4, n * 4), name + ": weights");
    expect(same_bytes(plan.dropped->bytes.data(), ref.dropped->bytes.data() + at, n), name + ": dropped");
  }
  const std::size_t elem = act_dtype == FRUGAL_DTYPE_FLOAT32 ? 4 : 2;
  HostTensor offsets(FRUGAL_DTYPE_INT64, {shape.local_experts + 1});
  std::unique_ptr<HostTensor> rows, row_token;
  if (shape.received_rows > 0) {
    rows = std::make_unique<HostTensor>(act_dtype, std::vector<int64_t>{shape.received_rows, kHidden});
    row_token = std::make_unique<HostTensor>(FRUGAL_DTYPE_INT64, std::vector<int64_t>{shape.received_rows});
  }
  const frugal_route_dispatch_args d{sizeof(d),     &plan.plan,
                                     &in.x->view,   rows ? &rows->view : nullptr,
                                     &offsets.view, row_token ? &row_token->view : nullptr,
                                     nullptr};
  host::check(frugal_router_ep_dispatch(ep.get(), &d));
  // The rows of this rank's experts: the single router's, in its order.
  const std::span<const int64_t> off = HostPlan::values<int64_t>(offsets);
  const int64_t first = shape.first_expert;
  const int64_t base = ref_off[static_cast<std::size_t>(first)];
  expect(ref_off[static_cast<std::size_t>(first + shape.local_experts)] - base == shape.received_rows,
         name + ": received rows = the single router's rows of these experts");
  for (int64_t j = 0; j <= shape.local_experts; ++j)
    expect(off[static_cast<std::size_t>(j)] == ref_off[static_cast<std::size_t>(first + j)] - base,
           name + ": local expert offsets");
  if (shape.received_rows > 0) {
    expect(same_bytes(rows->bytes.data(), ref_rows.bytes.data() + base * kHidden * static_cast<int64_t>(elem),
                      static_cast<std::size_t>(shape.received_rows * kHidden) * elem),
           name + ": received rows, bit for bit and in order");
    expect(same_bytes(row_token->bytes.data(), ref.row_token->bytes.data() + base * 8,
                      static_cast<std::size_t>(shape.received_rows) * 8),
           name + ": received rows' group tokens");
    run_experts(*rows, off, first);
  }
  HostTensor out(act_dtype, {T, kHidden});
  const frugal_route_move_args m{sizeof(m), &plan.plan, rows ? &rows->view : nullptr, &out.view, nullptr};
  host::check(frugal_router_ep_combine(ep.get(), &m));
  expect(same_bytes(out.bytes.data(), ref_out.bytes.data() + in.offset * kHidden * static_cast<int64_t>(elem),
                    static_cast<std::size_t>(T * kHidden) * elem),
         name + ": combined outputs, bit for bit");

  // P_i and the losses: the group's, the same bits on every rank, within
  // rounding of the single router's (ranks add their sums in rank order).
  expect(same_on_all_ranks(bytes_of(*plan.mean_prob)) && same_on_all_ranks(bytes_of(*plan.losses)),
         name + ": mean_prob and losses equal on every rank");
  const auto close = [](float a, float b) { return std::fabs(a - b) <= 1e-5f * std::max(1.0f, std::fabs(b)); };
  const auto mp = HostPlan::values<float>(*plan.mean_prob);
  const auto ref_mp = HostPlan::values<float>(*ref.mean_prob);
  for (int64_t e = 0; e < E; ++e)
    expect(close(mp[static_cast<std::size_t>(e)], ref_mp[static_cast<std::size_t>(e)]), name + ": mean_prob");
  for (int i = 0; i < 2; ++i)
    expect(close(HostPlan::values<float>(*plan.losses)[static_cast<std::size_t>(i)],
                 HostPlan::values<float>(*ref.losses)[static_cast<std::size_t>(i)]),
           name + ": loss " + std::to_string(i));
}

std::vector<Case> cases(int64_t experts) {
  const int64_t E = experts;
  return {
      {"topk_softmax", {{"experts", E}, {"k", int64_t{2}}, {"z_coef", 0.01}}},
      {"topk_softmax", {{"experts", E}, {"k", int64_t{2}}, {"capacity_factor", 0.8}}},
      {"topk_softmax", {{"experts", E}, {"k", int64_t{3}}, {"capacity_factor", 1.0}, {"drop_policy", "position"}}},
      {"deepseek_v3", {{"experts", E}, {"k", int64_t{2}}, {"aux_coef", 0.001}, {"z_coef", 0.01}}},
      {"deepseek_v3", {{"experts", E}, {"k", int64_t{2}}, {"capacity_factor", 0.7}}},
      {"deepseek_v3", {{"experts", E}, {"k", int64_t{2}}, {"capacity_factor", 0.7}, {"drop_policy", "position"}}},
      {"expert_choice", {{"experts", E}, {"capacity_factor", 1.0}}},
      {"expert_choice", {{"experts", E}, {"capacity_factor", 3.0}}},
  };
}

void run_equal() {
  const Group g = make_group();
  // An even split and an uneven one (the first E % W ranks own one more).
  for (const int64_t experts : {int64_t{8}, int64_t{7}}) {
    uint32_t seed = 11;
    for (const Case& c : cases(experts)) {
      check_case(g, c, FRUGAL_DTYPE_FLOAT32, seed);
      check_case(g, c, FRUGAL_DTYPE_BFLOAT16, seed + 1);
      seed += 17;
    }
  }
  // Every rank's activations big enough that an expert-major block spans
  // several rows per rank: done above with 37 + 29r tokens and hidden 24.
}

void run_bias() {
  const Group g = make_group();
  const Case c{"deepseek_v3", {{"experts", int64_t{8}}, {"k", int64_t{2}}, {"gamma", 0.01}}};
  auto single = make_ep_router(g, c, nullptr);
  auto ep = make_ep_router(g, c, g.comm.get());
  const int64_t T = tokens_of(g_rank);
  for (uint32_t step = 0; step < 100; ++step) {
    const Inputs in = make_inputs(8, 1000 + step, FRUGAL_DTYPE_FLOAT32);
    HostPlan ref(single.get(), in.group);
    route(single.get(), *in.all_logits, ref);
    HostPlan plan(ep.get(), T);
    route(ep.get(), *in.logits, plan);
    expect(same_bytes(plan.expert_ids->bytes.data(), ref.expert_ids->bytes.data() + in.offset * 2 * 4,
                      static_cast<std::size_t>(T * 2 * 4)),
           "bias step " + std::to_string(step) + ": ids");
    // The group's demand, passed as it is: every rank moves its bias alike.
    host::check(frugal_router_update(ep.get(), &plan.expert_demand->view));
    host::check(frugal_router_update(single.get(), &ref.expert_demand->view));
    std::vector<uint8_t> a(4096), b(4096);
    size_t na = 0, nb = 0;
    host::check(frugal_router_export_state(ep.get(), a.data(), a.size(), &na));
    host::check(frugal_router_export_state(single.get(), b.data(), b.size(), &nb));
    a.resize(na);
    b.resize(nb);
    expect(a == b, "bias step " + std::to_string(step) + ": the bias equals the single router's");
    expect(same_on_all_ranks(a), "bias step " + std::to_string(step) + ": the bias is equal on every rank");
  }
}

void run_failure() {
  const Group g = make_group();
  const Case c{"topk_softmax", {{"experts", int64_t{8}}, {"k", int64_t{2}}}};
  auto ep = make_ep_router(g, c, g.comm.get());
  Inputs in = make_inputs(8, 5, FRUGAL_DTYPE_FLOAT32);
  if (g_rank == 1) {
    const float nan = std::nanf("");
    std::memcpy(in.logits->at(3, 2), &nan, 4);
  }
  HostPlan plan(ep.get(), tokens_of(g_rank));
  const auto start = std::chrono::steady_clock::now();
  frugal_error* e = try_route(ep.get(), in.logits->view, plan);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  expect(e != nullptr, "a failed rank fails the route everywhere");
  if (e == nullptr) return;
  const std::string message = frugal_error_message(e);
  const int32_t code = frugal_error_code(e);
  frugal_error_destroy(e);
  if (g_rank == 1) {
    expect(code == FRUGAL_ERR_INVALID_ARGUMENT, "the NaN rank: INVALID_ARGUMENT, got " + message);
  } else {
    expect(code == FRUGAL_ERR_CANCELLED && message.find("rank 1") != std::string::npos,
           "the other ranks name rank 1, got " + message);
  }
  expect(seconds < 10.0, "the failure is reported at once, not after the 30 s deadline");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_ranks);
  const std::string mode = argc > 1 ? argv[1] : "";
  try {
    if (mode == "equal") {
      run_equal();
    } else if (mode == "bias") {
      run_bias();
    } else if (mode == "failure") {
      run_failure();
    } else {
      std::fprintf(stderr, "usage: ep_ranks equal|bias|failure\n");
      ++g_failures;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: FAILED: %s\n", g_rank, e.what());
    ++g_failures;
  }
  int failures = 0;
  MPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) std::printf("ep_ranks %s on %d ranks: %s\n", mode.c_str(), g_ranks, failures ? "FAILED" : "passed");
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
