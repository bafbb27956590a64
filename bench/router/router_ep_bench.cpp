// router_ep_bench: expert-parallel dispatch + combine (frugal_router_ep_
// dispatch / _ep_combine over the `mpi` communicator) against one process
// permuting and combining the same tokens, in the same run. Run under
// mpirun:
//   mpirun -np 2 build/bin/router_ep_bench
//   mpirun -np 4 build/bin/router_ep_bench
// Every rank routes `--tokens` bf16 tokens (topk_softmax, dropless) and the
// group's experts are split over the ranks. Per round, each timed as the
// slowest rank's:
//   - ep: ep_dispatch then ep_combine of this rank's rows (the experts are
//     the identity: their time is the host's, not the dispatcher's);
//   - single: rank 0 alone, frugal_router_permute + frugal_router_combine
//     of the group's tokens with one router (the other ranks wait): what
//     one process does for the same tokens without any exchange;
//   - all-to-all: MPI_Alltoallv of the same bytes, both directions, called
//     directly: the exchange's share of ep.
// Medians over rounds. Throughput is the group's routed rows over the time.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "frugal/frugal.h"
#include "frugal/sdk/host.hpp"
#include "host_buffer.hpp"
#include "program_main.hpp"

namespace host = frugal::host;
using frugal::bench::HostBuffer;

namespace {

const frugal::args::Spec& command_line() {
  static const frugal::args::Spec spec{
      "router_ep_bench",
      "expert-parallel dispatch + combine against one process's permute + combine",
      "Under mpirun -np N: every rank routes --tokens bf16 tokens of --hidden columns to --experts experts (top "
      "--k, dropless) split over the ranks; times ep_dispatch + ep_combine (the slowest rank), one process's "
      "permute + combine of all ranks' tokens, and MPI_Alltoallv of the same bytes; prints their medians, the "
      "throughput ratio and the all-to-all share.",
      {},
      {frugal::args::value_flag("--tokens", "T", "tokens per rank, 1 to 2^20 (default 4096)"),
       frugal::args::value_flag("--experts", "E", "experts, at least the ranks (default 32)"),
       frugal::args::value_flag("--k", "K", "experts per token (default 4)"),
       frugal::args::value_flag("--hidden", "H", "columns per row (default 1024)"),
       frugal::args::value_flag("--repeats", "N", "rounds, the median kept, 1 to 100 (default 7)"),
       frugal::args::switch_flag("--quick", "T 256, H 64, 2 rounds: a smoke run")}};
  return spec;
}

int g_rank = 0;
int g_ranks = 1;

template <class Fn>
double slowest_seconds(Fn fn) {
  MPI_Barrier(MPI_COMM_WORLD);
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  double mine = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double slowest = 0;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// Every plan tensor of a router's shape for `tokens` tokens.
struct Plan {
  std::vector<std::unique_ptr<HostBuffer>> owned;
  frugal_route_plan plan{};
  frugal_route_shape shape{};
  int64_t experts_ = 0;

  Plan(frugal_router* router, int64_t tokens, int64_t experts, int64_t k, int32_t ranks) {
    shape.struct_size = sizeof(shape);
    host::check(frugal_router_plan_shape(router, tokens, &shape));
    experts_ = experts;
    const int64_t R = shape.max_rows;
    const int64_t S = tokens * k;
    const auto make = [&](int32_t dtype, int64_t n, std::size_t element) {
      owned.push_back(std::make_unique<HostBuffer>(dtype, n, 1, element));
      return &owned.back()->view;
    };
    plan.struct_size = sizeof(plan);
    plan.expert_ids = make(FRUGAL_DTYPE_INT32, S, 4);
    plan.weights = make(FRUGAL_DTYPE_FLOAT32, S, 4);
    plan.dropped = make(FRUGAL_DTYPE_UINT8, S, 1);
    plan.slot_row = make(FRUGAL_DTYPE_INT64, S, 8);
    plan.expert_offsets = make(FRUGAL_DTYPE_INT64, experts + 1, 8);
    plan.expert_demand = make(FRUGAL_DTYPE_INT64, experts, 8);
    plan.row_token = make(FRUGAL_DTYPE_INT64, R, 8);
    plan.row_weight = make(FRUGAL_DTYPE_FLOAT32, R, 4);
    plan.token_offsets = make(FRUGAL_DTYPE_INT64, tokens + 1, 8);
    plan.token_rows = make(FRUGAL_DTYPE_INT64, R, 8);
    plan.mean_prob = make(FRUGAL_DTYPE_FLOAT32, experts, 4);
    plan.losses = make(FRUGAL_DTYPE_FLOAT32, 2, 4);
    if (ranks > 0) {
      plan.ep_tokens = make(FRUGAL_DTYPE_INT64, ranks, 8);
      plan.ep_rows = make(FRUGAL_DTYPE_INT64, ranks * experts, 8);
    }
  }
  [[nodiscard]] int64_t kept() const { return static_cast<const int64_t*>(plan.expert_offsets->data)[experts_]; }
};

// bf16 logits of rank r's tokens (the same on every rank that makes them).
void fill_logits(HostBuffer& b, int rank, int64_t row0) {
  std::mt19937 gen(1234u + static_cast<unsigned>(rank));
  std::normal_distribution<float> normal(0.0f, 2.0f);
  auto* p = reinterpret_cast<uint16_t*>(b.bytes.data());
  const int64_t n = b.shape[1];
  for (int64_t i = 0; i < (b.shape[0] - row0) * n; ++i) {
    const float v = normal(gen);
    uint32_t bits = 0;
    std::memcpy(&bits, &v, 4);
    p[row0 * n + i] = static_cast<uint16_t>(bits >> 16);
  }
}

int bench(int64_t T, int64_t E, int64_t k, int64_t H, int repeats) {
  auto context = host::make_context();
  host::check(frugal_context_discover_plugins(context.get(), 0, nullptr));
  auto comm = host::make_comm(context.get(), "mpi", nullptr);
  auto options = host::make_options();
  host::check(frugal_options_set_int(options.get(), "experts", E));
  host::check(frugal_options_set_int(options.get(), "k", k));
  host::check(frugal_options_set_int(options.get(), "threads", 1));
  auto single = host::make_router(context.get(), "topk_softmax", options.get());
  host::check(frugal_options_set_comm(options.get(), "ep_comm", comm.get()));
  auto ep = host::make_router(context.get(), "topk_softmax", options.get());

  // This rank's tokens, routed by the group.
  HostBuffer logits(FRUGAL_DTYPE_BFLOAT16, T, E, 2);
  fill_logits(logits, g_rank, 0);
  HostBuffer x(FRUGAL_DTYPE_BFLOAT16, T, H, 2);
  std::fill(x.bytes.begin(), x.bytes.end(), static_cast<unsigned char>(0x3f));
  Plan plan(ep.get(), T, E, k, g_ranks);
  const frugal_route_args route{sizeof(route), &logits.view, &plan.plan, nullptr};
  const double ep_route_s = slowest_seconds([&] { host::check(frugal_router_route(ep.get(), &route)); });
  frugal_route_ep_shape shape{};
  shape.struct_size = sizeof(shape);
  host::check(frugal_router_ep_shape(ep.get(), &plan.plan, &shape));
  HostBuffer received(FRUGAL_DTYPE_BFLOAT16, std::max<int64_t>(shape.received_rows, 1), H, 2);
  received.shape[0] = shape.received_rows;
  HostBuffer out(FRUGAL_DTYPE_BFLOAT16, T, H, 2);
  const frugal_route_dispatch_args dispatch{
      sizeof(dispatch), &plan.plan, &x.view, shape.received_rows > 0 ? &received.view : nullptr,
      nullptr,          nullptr,    nullptr};
  const frugal_route_move_args combine{sizeof(combine), &plan.plan, shape.received_rows > 0 ? &received.view : nullptr,
                                       &out.view, nullptr};

  // The same bytes through MPI_Alltoallv, as the dispatch sends them.
  const auto* rows = static_cast<const int64_t*>(plan.plan.ep_rows->data);
  const auto* offsets = static_cast<const int64_t*>(plan.plan.expert_offsets->data);
  std::vector<int> send_counts(static_cast<std::size_t>(g_ranks)), send_displs(send_counts.size()),
      recv_counts(send_counts.size()), recv_displs(send_counts.size());
  for (int q = 0, sd = 0, rd = 0; q < g_ranks; ++q) {
    const int64_t first = FRUGAL_ROUTE_EP_FIRST(E, g_ranks, q);
    const int64_t count = FRUGAL_ROUTE_EP_EXPERTS(E, g_ranks, q);
    send_counts[static_cast<std::size_t>(q)] = static_cast<int>((offsets[first + count] - offsets[first]) * H * 2);
    int64_t from_q = 0;
    for (int64_t e = shape.first_expert; e < shape.first_expert + shape.local_experts; ++e) from_q += rows[q * E + e];
    recv_counts[static_cast<std::size_t>(q)] = static_cast<int>(from_q * H * 2);
    send_displs[static_cast<std::size_t>(q)] = sd;
    recv_displs[static_cast<std::size_t>(q)] = rd;
    sd += send_counts[static_cast<std::size_t>(q)];
    rd += recv_counts[static_cast<std::size_t>(q)];
  }
  std::vector<unsigned char> a2a_send(static_cast<std::size_t>(plan.kept() * H * 2) + 1),
      a2a_recv(static_cast<std::size_t>(shape.received_rows * H * 2) + 1);

  // Rank 0's single router over the group's tokens.
  const int64_t G = shape.group_tokens;
  std::unique_ptr<Plan> all_plan;
  std::unique_ptr<HostBuffer> all_logits, all_x, all_rows, all_out;
  if (g_rank == 0) {
    all_logits = std::make_unique<HostBuffer>(FRUGAL_DTYPE_BFLOAT16, G, E, 2);
    for (int r = 0; r < g_ranks; ++r) {
      HostBuffer part(FRUGAL_DTYPE_BFLOAT16, T, E, 2);
      fill_logits(part, r, 0);
      std::copy(part.bytes.begin(), part.bytes.end(), all_logits->bytes.begin() + r * T * E * 2);
    }
    all_plan = std::make_unique<Plan>(single.get(), G, E, k, 0);
    const frugal_route_args all_route{sizeof(all_route), &all_logits->view, &all_plan->plan, nullptr};
    host::check(frugal_router_route(single.get(), &all_route));
    all_x = std::make_unique<HostBuffer>(FRUGAL_DTYPE_BFLOAT16, G, H, 2);
    std::fill(all_x->bytes.begin(), all_x->bytes.end(), static_cast<unsigned char>(0x3f));
    all_rows = std::make_unique<HostBuffer>(FRUGAL_DTYPE_BFLOAT16, all_plan->shape.max_rows, H, 2);
    all_out = std::make_unique<HostBuffer>(FRUGAL_DTYPE_BFLOAT16, G, H, 2);
  }

  std::vector<double> ep_s, single_s, a2a_s, ratio;
  for (int round = 0; round < repeats; ++round) {
    const double e = slowest_seconds([&] {
      host::check(frugal_router_ep_dispatch(ep.get(), &dispatch));
      host::check(frugal_router_ep_combine(ep.get(), &combine));
    });
    const double s = slowest_seconds([&] {
      if (g_rank != 0) return;
      const frugal_route_move_args p{sizeof(p), &all_plan->plan, &all_x->view, &all_rows->view, nullptr};
      host::check(frugal_router_permute(single.get(), &p));
      const frugal_route_move_args c{sizeof(c), &all_plan->plan, &all_rows->view, &all_out->view, nullptr};
      host::check(frugal_router_combine(single.get(), &c));
    });
    const double a = slowest_seconds([&] {
      MPI_Alltoallv(a2a_send.data(), send_counts.data(), send_displs.data(), MPI_BYTE, a2a_recv.data(),
                    recv_counts.data(), recv_displs.data(), MPI_BYTE, MPI_COMM_WORLD);
      MPI_Alltoallv(a2a_recv.data(), recv_counts.data(), recv_displs.data(), MPI_BYTE, a2a_send.data(),
                    send_counts.data(), send_displs.data(), MPI_BYTE, MPI_COMM_WORLD);
    });
    ep_s.push_back(e);
    single_s.push_back(s);
    a2a_s.push_back(a);
    ratio.push_back(s / e);
  }
  int64_t group_rows = plan.kept();
  MPI_Allreduce(MPI_IN_PLACE, &group_rows, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) {
    const double e = median(ep_s), s = median(single_s), a = median(a2a_s);
    const double gb = static_cast<double>(group_rows * H * 2) * 2 / 1e9;  // rows out and back
    std::printf("router_ep_bench: %d ranks, %lld tokens per rank, E %lld, k %lld, H %lld bf16, %d rounds\n", g_ranks,
                static_cast<long long>(T), static_cast<long long>(E), static_cast<long long>(k),
                static_cast<long long>(H), repeats);
    std::printf("  %-34s %10s %12s %10s\n", "", "ms", "Mrows/s", "GB/s");
    const auto line = [&](const char* what, double t) {
      std::printf("  %-34s %10.3f %12.2f %10.2f\n", what, t * 1e3, static_cast<double>(group_rows) / t / 1e6, gb / t);
    };
    line("ep_dispatch + ep_combine", e);
    line("one process: permute + combine", s);
    line("MPI_Alltoallv, both directions", a);
    std::printf("  ep throughput / one process: %.3f (median of per-round ratios %.3f)\n", s / e, median(ratio));
    std::printf("  all-to-all share of ep: %.2f\n", a / e);
    std::printf("  (route across ranks, once: %.3f ms)\n", ep_route_s * 1e3);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_ranks);
  const int rc = frugal::args::program_main(argc, argv, command_line(), [&](const frugal::args::ParsedArgs& args) {
    const bool quick = args.has("--quick");
    const int64_t T = frugal::args::int_value(args, "--tokens", quick ? 256 : 4096, 1, int64_t{1} << 20);
    const int64_t E = frugal::args::int_value(args, "--experts", 32, g_ranks, 1 << 16);
    const int64_t k = frugal::args::int_value(args, "--k", 4, 1, E);
    const int64_t H = frugal::args::int_value(args, "--hidden", quick ? 64 : 1024, 1, 1 << 16);
    const int repeats = static_cast<int>(frugal::args::int_value(args, "--repeats", quick ? 2 : 7, 1, 100));
    return bench(T, E, k, H, repeats);
  });
  MPI_Finalize();
  return rc;
}
