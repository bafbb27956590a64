// The dispatch plan: where each assignment's row goes in the expert-major
// buffer, which assignments were dropped, and how to combine back.
//
// Every index and offset is int64: rows * hidden passes 2^31 at e.g.
// 64K tokens * k 8 * hidden 4096, and callers multiply them.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/capacity.hpp"
#include "algorithms/types.hpp"

namespace frugal::router {

struct DispatchPlan {
  int64_t tokens = 0;
  int64_t experts = 0;
  int64_t k = 0;  // slots per token; 0 for expert-choice plans (no slots)

  // Expert-major layout: expert e owns rows [expert_offsets[e], expert_offsets[e+1]),
  // its tokens in increasing token order (slot order for a repeated token).
  std::vector<int64_t> expert_counts;   // [experts] kept rows
  std::vector<int64_t> expert_offsets;  // [experts + 1], expert_offsets[experts] = rows()
  std::vector<int64_t> expert_demand;   // [experts] assignments asked for, before drops
  std::vector<int64_t> row_token;       // [rows] source token of each row
  std::vector<float> row_weight;        // [rows] gate weight of each row
  std::vector<int64_t> row_slot;        // [rows] slot t * k + j of each row (token choice only)

  // Token choice only: slot_row[s] = the row of slot s, or -1 if dropped.
  std::vector<int64_t> slot_row;  // [tokens * k]
  std::vector<uint8_t> dropped;   // [tokens * k] 1 = dropped

  // Combine bookkeeping: token t's rows are token_rows[token_offsets[t] ..
  // token_offsets[t+1]), in slot order (token choice) or expert order
  // (expert choice); combine adds them in exactly this order.
  std::vector<int64_t> token_offsets;  // [tokens + 1]
  std::vector<int64_t> token_rows;     // [rows]

  [[nodiscard]] int64_t rows() const noexcept { return static_cast<int64_t>(row_token.size()); }
  [[nodiscard]] int64_t dropped_count() const noexcept { return tokens * k - (k == 0 ? 0 : rows()); }
};

// The plan for a token-choice routing: a counting sort of the slots by
// expert (stable, so by token inside an expert), then, with a capacity
// policy, C = expert_capacity(tokens, k, experts, factor) rows per expert at
// most, chosen by the policy. O(tokens * k + experts) plus a partial sort
// of the overflowing experts' assignments for by_probability.
[[nodiscard]] DispatchPlan build_dispatch_plan(const Routing& routing, const CapacityOptions& capacity = {});

// The slots of each expert, in slot order (a stable counting sort by
// expert): expert e's are slots[offsets[e] .. offsets[e + 1]), demand[e] of them.
struct ExpertSlots {
  std::vector<int64_t> demand;   // [experts]
  std::vector<int64_t> offsets;  // [experts + 1]
  std::vector<int64_t> slots;    // [tokens * k]
  [[nodiscard]] std::span<const int64_t> of(int64_t e) const {
    return std::span<const int64_t>(slots).subspan(static_cast<std::size_t>(offsets[static_cast<std::size_t>(e)]),
                                                   static_cast<std::size_t>(demand[static_cast<std::size_t>(e)]));
  }
};
[[nodiscard]] ExpertSlots slots_by_expert(const Routing& routing);

// The plan that keeps exactly the slots with keep[s] != 0 (decided
// elsewhere, e.g. across ranks by algorithms/group_route.hpp); expert_demand
// is the slots' demand.
[[nodiscard]] DispatchPlan build_dispatch_plan(const Routing& routing, const ExpertSlots& by_expert,
                                               std::span<const uint8_t> keep);

// Fills token_offsets / token_rows from row_token (for plans built per
// expert, such as expert choice): rows of a token in increasing row order,
// that is in expert order.
void index_rows_by_token(DispatchPlan& plan);

}  // namespace frugal::router
