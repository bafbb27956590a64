// Moving rows across an expert-parallel group (frugal_router_ep_dispatch /
// _ep_combine): the shape of Megatron-Core's all-to-all token dispatcher.
//   dispatch: permute this rank's tokens into its plan's expert-major rows;
//     since each rank owns a contiguous block of experts, those rows are
//     already grouped by destination, so one all-to-all-v sends them; what
//     arrives is source-major ([source][local expert]) and is regrouped
//     expert-major ([local expert][source]): inside an expert, sources in
//     rank order and each source's rows in rising token order, which is the
//     group's token order. The rows' group token ids travel beside them.
//   combine: the reverse regroup and all-to-all-v put every row back in this
//     rank's plan order, and the plan's combine adds them per token.
// Rows are copied, never converted, so both moves are bit-exact.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/group_route.hpp"
#include "frugal/sdk/tensor_view.hpp"

namespace frugal::router {

// Who sends what to whom for one plan, from every rank's kept rows per
// expert (ep_rows, [W, E]) and this rank's expert offsets ([E + 1]).
struct ExchangeLayout {
  ExpertBlock mine;
  std::vector<std::size_t> send_rows, send_first;  // [W]: rows of this rank's plan for rank q's experts
  std::vector<std::size_t> recv_rows, recv_first;  // [W]: rows from rank r, source-major
  std::vector<int64_t> expert_offsets;             // [local + 1]: the expert-major output's offsets
  std::vector<int64_t> ep_rows;                    // [W, E], as given
  int64_t experts = 0;
  int64_t received = 0;
};
[[nodiscard]] ExchangeLayout exchange_layout(int64_t experts, int64_t ranks, int64_t rank,
                                             std::span<const int64_t> ep_rows, std::span<const int64_t> expert_offsets);

// Buffers the moves reuse from call to call (grown, never shrunk): fresh
// ones would cost a zero-fill and a page fault per byte moved each step.
// One per router, used by one call at a time.
struct GroupScratch {
  std::vector<std::byte> send, recv, tokens_send, tokens_recv;
  template <class T>
  static T* take(std::vector<std::byte>& buffer, std::size_t count) {
    if (buffer.size() < count * sizeof(T)) buffer.resize(count * sizeof(T));
    return reinterpret_cast<T*>(buffer.data());
  }
};

// The plan tensors the moves read (this rank's, host memory).
struct GroupPlan {
  std::span<const int64_t> row_token;       // [R], the first expert_offsets[E] used
  std::span<const int64_t> expert_offsets;  // [E + 1]
  std::span<const int64_t> token_offsets;   // [T + 1]
  std::span<const int64_t> token_rows;      // [R]
  std::span<const float> row_weight;        // [R]
  std::span<const int64_t> ep_tokens;       // [W]
  std::span<const int64_t> ep_rows;         // [W, E]
};

// The dispatch: x [T, H] -> out [received, H] (T = float or uint16_t, bf16
// bits); offsets ([local + 1]) and row_token ([received], group numbering)
// are written when not empty. Collective.
template <class T>
void group_dispatch(GroupComm& comm, GroupScratch& scratch, const GroupPlan& plan, int64_t experts,
                    sdk::MatrixView<const T> x, sdk::MatrixView<T> out, std::span<int64_t> offsets,
                    std::span<int64_t> row_token, unsigned threads = 0);

// The combine: y [received, H] in group_dispatch's output order -> out
// [T, H], combine_rows' arithmetic in the plan's token_rows order. Collective.
template <class T>
void group_combine(GroupComm& comm, GroupScratch& scratch, const GroupPlan& plan, int64_t experts,
                   sdk::MatrixView<const T> y, sdk::MatrixView<T> out, unsigned threads = 0);

}  // namespace frugal::router
