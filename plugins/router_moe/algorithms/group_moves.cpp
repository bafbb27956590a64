#include "algorithms/group_moves.hpp"

#include <cstring>
#include <string>

#include "algorithms/parallel.hpp"
#include "algorithms/permute.hpp"

namespace frugal::router {
namespace {

using Counts = std::vector<std::size_t>;

Counts times(const Counts& rows, std::size_t hidden) {
  Counts out(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) out[i] = rows[i] * hidden;
  return out;
}

template <class T>
Payload payload_of() {
  if constexpr (std::is_same_v<T, float>) return Payload::f32;
  if constexpr (std::is_same_v<T, uint16_t>) return Payload::bf16;
  return Payload::i64;
}

// One run of rows of a regroup: `rows` rows from source-major row `from`
// to expert-major row `to` (or back).
struct Run {
  int64_t from = 0, to = 0, rows = 0;
};

// The runs that take the source-major buffer ([r][local expert]) to the
// expert-major one ([local expert][r]).
std::vector<Run> regroup_runs(const ExchangeLayout& x) {
  const int64_t W = static_cast<int64_t>(x.recv_rows.size());
  std::vector<Run> runs;
  runs.reserve(static_cast<std::size_t>(W * x.mine.count));
  std::vector<int64_t> next(x.expert_offsets.begin(), x.expert_offsets.end() - 1);
  for (int64_t r = 0; r < W; ++r) {
    auto from = static_cast<int64_t>(x.recv_first[static_cast<std::size_t>(r)]);
    for (int64_t j = 0; j < x.mine.count; ++j) {
      const int64_t n = x.ep_rows[static_cast<std::size_t>(r * x.experts + x.mine.first + j)];
      if (n > 0) runs.push_back(Run{from, next[static_cast<std::size_t>(j)], n});
      from += n;
      next[static_cast<std::size_t>(j)] += n;
    }
  }
  return runs;
}

// Copies each run's rows: forward (source-major -> expert-major) or back.
template <class T>
void copy_runs(const std::vector<Run>& runs, bool forward, sdk::MatrixView<const T> in, sdk::MatrixView<T> out,
               unsigned threads) {
  const auto bytes = static_cast<std::size_t>(in.cols()) * sizeof(T);
  parallel_blocks(static_cast<int64_t>(runs.size()), 1, threads, [&](int64_t i, int64_t, int64_t) {
    const Run& run = runs[static_cast<std::size_t>(i)];
    const int64_t src = forward ? run.from : run.to;
    const int64_t dst = forward ? run.to : run.from;
    for (int64_t k = 0; k < run.rows; ++k)
      std::memcpy(out.data() + (dst + k) * out.row_stride(), in.data() + (src + k) * in.row_stride(), bytes);
  });
}

}  // namespace

ExchangeLayout exchange_layout(int64_t experts, int64_t ranks, int64_t rank, std::span<const int64_t> ep_rows,
                               std::span<const int64_t> expert_offsets) {
  if (static_cast<int64_t>(ep_rows.size()) != ranks * experts ||
      static_cast<int64_t>(expert_offsets.size()) != experts + 1)
    throw RouterError("exchange: " + std::to_string(ep_rows.size()) + " ep_rows and " +
                      std::to_string(expert_offsets.size()) + " expert offsets for " + std::to_string(ranks) +
                      " ranks and " + std::to_string(experts) + " experts");
  ExchangeLayout x;
  x.experts = experts;
  x.mine = expert_block(experts, ranks, rank);
  x.ep_rows.assign(ep_rows.begin(), ep_rows.end());
  const auto W = static_cast<std::size_t>(ranks);
  x.send_rows.assign(W, 0);
  x.send_first.assign(W, 0);
  x.recv_rows.assign(W, 0);
  x.recv_first.assign(W, 0);
  for (int64_t q = 0; q < ranks; ++q) {
    const ExpertBlock b = expert_block(experts, ranks, q);
    const int64_t begin = expert_offsets[static_cast<std::size_t>(b.first)];
    const int64_t end = expert_offsets[static_cast<std::size_t>(b.first + b.count)];
    x.send_first[static_cast<std::size_t>(q)] = static_cast<std::size_t>(begin);
    x.send_rows[static_cast<std::size_t>(q)] = static_cast<std::size_t>(end - begin);
  }
  x.expert_offsets.assign(static_cast<std::size_t>(x.mine.count) + 1, 0);
  for (int64_t r = 0; r < ranks; ++r) {
    int64_t n = 0;
    for (int64_t j = 0; j < x.mine.count; ++j) {
      const int64_t rows = ep_rows[static_cast<std::size_t>(r * experts + x.mine.first + j)];
      n += rows;
      x.expert_offsets[static_cast<std::size_t>(j) + 1] += rows;
    }
    x.recv_first[static_cast<std::size_t>(r)] = static_cast<std::size_t>(x.received);
    x.recv_rows[static_cast<std::size_t>(r)] = static_cast<std::size_t>(n);
    x.received += n;
  }
  for (int64_t j = 0; j < x.mine.count; ++j)
    x.expert_offsets[static_cast<std::size_t>(j) + 1] += x.expert_offsets[static_cast<std::size_t>(j)];
  const std::size_t own = x.send_rows[static_cast<std::size_t>(rank)];
  if (own != x.recv_rows[static_cast<std::size_t>(rank)])
    throw RouterError("exchange: this rank keeps " + std::to_string(own) +
                      " rows for its own experts but ep_rows says " +
                      std::to_string(x.recv_rows[static_cast<std::size_t>(rank)]));
  return x;
}

template <class T>
void group_dispatch(GroupComm& comm, GroupScratch& scratch, const GroupPlan& plan, int64_t experts,
                    sdk::MatrixView<const T> x, sdk::MatrixView<T> out, std::span<int64_t> offsets,
                    std::span<int64_t> row_token, unsigned threads) {
  const ExchangeLayout lay = exchange_layout(experts, comm.ranks(), comm.rank(), plan.ep_rows, plan.expert_offsets);
  if (out.rows() != lay.received)
    throw RouterError("dispatch: " + std::to_string(out.rows()) + " output rows; this rank receives " +
                      std::to_string(lay.received));
  const int64_t H = x.cols();
  const int64_t N = plan.expert_offsets.back();
  // This rank's rows, expert-major: the send buffer, grouped by owner.
  T* send = GroupScratch::take<T>(scratch.send, static_cast<std::size_t>(N * H));
  permute_rows<T>(plan.row_token.first(static_cast<std::size_t>(N)), x, sdk::MatrixView<T>(send, N, H, H), threads);
  T* recv = GroupScratch::take<T>(scratch.recv, static_cast<std::size_t>(lay.received * H));
  const auto h = static_cast<std::size_t>(H);
  comm.all_to_all_v(payload_of<T>(), send, times(lay.send_rows, h), times(lay.send_first, h), recv,
                    times(lay.recv_rows, h), times(lay.recv_first, h));
  // The rows' tokens in the group's numbering travel the same way.
  int64_t token_offset = 0;
  for (int64_t r = 0; r < comm.rank(); ++r) token_offset += plan.ep_tokens[static_cast<std::size_t>(r)];
  auto* send_tokens = GroupScratch::take<int64_t>(scratch.tokens_send, static_cast<std::size_t>(N));
  for (int64_t r = 0; r < N; ++r) send_tokens[r] = token_offset + plan.row_token[static_cast<std::size_t>(r)];
  auto* recv_tokens = GroupScratch::take<int64_t>(scratch.tokens_recv, static_cast<std::size_t>(lay.received));
  comm.all_to_all_v(Payload::i64, send_tokens, lay.send_rows, lay.send_first, recv_tokens, lay.recv_rows,
                    lay.recv_first);

  const std::vector<Run> runs = regroup_runs(lay);
  copy_runs<T>(runs, true, sdk::MatrixView<const T>(recv, lay.received, H, H), out, threads);
  if (!row_token.empty())
    copy_runs<int64_t>(runs, true, sdk::MatrixView<const int64_t>(recv_tokens, lay.received, 1, 1),
                       sdk::MatrixView<int64_t>(row_token.data(), lay.received, 1, 1), 1);
  if (!offsets.empty()) std::copy(lay.expert_offsets.begin(), lay.expert_offsets.end(), offsets.begin());
}

template <class T>
void group_combine(GroupComm& comm, GroupScratch& scratch, const GroupPlan& plan, int64_t experts,
                   sdk::MatrixView<const T> y, sdk::MatrixView<T> out, unsigned threads) {
  const ExchangeLayout lay = exchange_layout(experts, comm.ranks(), comm.rank(), plan.ep_rows, plan.expert_offsets);
  if (y.rows() != lay.received)
    throw RouterError("combine: " + std::to_string(y.rows()) + " input rows; this rank's experts received " +
                      std::to_string(lay.received));
  const int64_t H = out.cols();
  const int64_t N = plan.expert_offsets.back();
  T* send = GroupScratch::take<T>(scratch.recv, static_cast<std::size_t>(lay.received * H));
  copy_runs<T>(regroup_runs(lay), false, y, sdk::MatrixView<T>(send, lay.received, H, H), threads);
  T* rows = GroupScratch::take<T>(scratch.send, static_cast<std::size_t>(N * H));
  const auto h = static_cast<std::size_t>(H);
  // The dispatch's exchange reversed: what came from r goes back to r.
  comm.all_to_all_v(payload_of<T>(), send, times(lay.recv_rows, h), times(lay.recv_first, h), rows,
                    times(lay.send_rows, h), times(lay.send_first, h));
  combine_rows<T>(plan.token_offsets, plan.token_rows, plan.row_weight, sdk::MatrixView<const T>(rows, N, H, H), out,
                  threads);
}

template void group_dispatch<float>(GroupComm&, GroupScratch&, const GroupPlan&, int64_t, sdk::MatrixView<const float>,
                                    sdk::MatrixView<float>, std::span<int64_t>, std::span<int64_t>, unsigned);
template void group_dispatch<uint16_t>(GroupComm&, GroupScratch&, const GroupPlan&, int64_t,
                                       sdk::MatrixView<const uint16_t>, sdk::MatrixView<uint16_t>, std::span<int64_t>,
                                       std::span<int64_t>, unsigned);
template void group_combine<float>(GroupComm&, GroupScratch&, const GroupPlan&, int64_t, sdk::MatrixView<const float>,
                                   sdk::MatrixView<float>, unsigned);
template void group_combine<uint16_t>(GroupComm&, GroupScratch&, const GroupPlan&, int64_t,
                                      sdk::MatrixView<const uint16_t>, sdk::MatrixView<uint16_t>, unsigned);

}  // namespace frugal::router
