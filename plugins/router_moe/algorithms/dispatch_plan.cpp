#include "algorithms/dispatch_plan.hpp"

#include <algorithm>

namespace frugal::router {
namespace {

// Marks the slots of one expert (given in slot order) that the policy keeps
// under `capacity`.
void mark_kept(std::span<const int64_t> slots, const Routing& r, DropPolicy policy, int64_t capacity,
               std::vector<uint8_t>& keep) {
  const auto c = static_cast<std::size_t>(capacity);
  if (policy == DropPolicy::dropless || slots.size() <= c) {
    for (const int64_t s : slots) keep[static_cast<std::size_t>(s)] = 1;
    return;
  }
  if (policy == DropPolicy::by_position) {
    for (std::size_t i = 0; i < c; ++i) keep[static_cast<std::size_t>(slots[i])] = 1;
    return;
  }
  // by_probability: highest weight first; equal weights by slot, i.e. by
  // token: a strict total order, so the kept set is unique.
  std::vector<int64_t> order(slots.begin(), slots.end());
  std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(c), order.end(),
                   [&](int64_t a, int64_t b) {
                     const float wa = r.weight[static_cast<std::size_t>(a)];
                     const float wb = r.weight[static_cast<std::size_t>(b)];
                     return wa != wb ? wa > wb : a < b;
                   });
  for (std::size_t i = 0; i < c; ++i) keep[static_cast<std::size_t>(order[i])] = 1;
}

}  // namespace

ExpertSlots slots_by_expert(const Routing& r) {
  const auto E = static_cast<std::size_t>(r.experts);
  ExpertSlots x;
  x.demand.assign(E, 0);
  for (const int32_t e : r.expert) ++x.demand[static_cast<std::size_t>(e)];
  x.offsets.assign(E + 1, 0);
  for (std::size_t e = 0; e < E; ++e) x.offsets[e + 1] = x.offsets[e] + x.demand[e];
  x.slots.resize(r.expert.size());
  std::vector<int64_t> next(x.offsets.begin(), x.offsets.end() - 1);
  for (std::size_t s = 0; s < r.expert.size(); ++s) {
    x.slots[static_cast<std::size_t>(next[static_cast<std::size_t>(r.expert[s])]++)] = static_cast<int64_t>(s);
  }
  return x;
}

DispatchPlan build_dispatch_plan(const Routing& r, const CapacityOptions& capacity) {
  validate(r);
  const ExpertSlots by_expert = slots_by_expert(r);
  const int64_t cap = capacity.policy == DropPolicy::dropless
                          ? r.slots()
                          : expert_capacity(r.tokens, r.k, r.experts, capacity.capacity_factor);
  std::vector<uint8_t> keep(static_cast<std::size_t>(r.slots()), 0);
  for (int64_t e = 0; e < r.experts; ++e) mark_kept(by_expert.of(e), r, capacity.policy, cap, keep);
  return build_dispatch_plan(r, by_expert, keep);
}

DispatchPlan build_dispatch_plan(const Routing& r, const ExpertSlots& by_expert, std::span<const uint8_t> keep) {
  DispatchPlan p;
  p.tokens = r.tokens;
  p.experts = r.experts;
  p.k = r.k;
  p.expert_demand = by_expert.demand;
  const auto E = static_cast<std::size_t>(r.experts);
  p.expert_counts.assign(E, 0);
  p.expert_offsets.assign(E + 1, 0);
  p.slot_row.assign(static_cast<std::size_t>(r.slots()), -1);
  p.dropped.assign(static_cast<std::size_t>(r.slots()), 1);
  int64_t row = 0;
  for (std::size_t e = 0; e < E; ++e) {
    for (const int64_t s : by_expert.of(static_cast<int64_t>(e))) {
      if (keep[static_cast<std::size_t>(s)] == 0) continue;
      p.slot_row[static_cast<std::size_t>(s)] = row++;
      p.dropped[static_cast<std::size_t>(s)] = 0;
    }
    p.expert_offsets[e + 1] = row;
    p.expert_counts[e] = row - p.expert_offsets[e];
  }

  const auto rows = static_cast<std::size_t>(row);
  p.row_token.resize(rows);
  p.row_weight.resize(rows);
  p.row_slot.resize(rows);
  p.token_offsets.assign(static_cast<std::size_t>(r.tokens) + 1, 0);
  p.token_rows.resize(rows);
  std::size_t at = 0;
  for (int64_t t = 0; t < r.tokens; ++t) {
    for (int64_t s = t * r.k; s < (t + 1) * r.k; ++s) {
      const int64_t rw = p.slot_row[static_cast<std::size_t>(s)];
      if (rw < 0) continue;
      p.row_token[static_cast<std::size_t>(rw)] = t;
      p.row_weight[static_cast<std::size_t>(rw)] = r.weight[static_cast<std::size_t>(s)];
      p.row_slot[static_cast<std::size_t>(rw)] = s;
      p.token_rows[at++] = rw;
    }
    p.token_offsets[static_cast<std::size_t>(t) + 1] = static_cast<int64_t>(at);
  }
  return p;
}

void index_rows_by_token(DispatchPlan& p) {
  p.token_offsets.assign(static_cast<std::size_t>(p.tokens) + 1, 0);
  for (const int64_t t : p.row_token) ++p.token_offsets[static_cast<std::size_t>(t) + 1];
  for (std::size_t t = 0; t < static_cast<std::size_t>(p.tokens); ++t) p.token_offsets[t + 1] += p.token_offsets[t];
  std::vector<int64_t> next(p.token_offsets.begin(), p.token_offsets.end() - 1);
  p.token_rows.resize(p.row_token.size());
  for (std::size_t rw = 0; rw < p.row_token.size(); ++rw) {
    p.token_rows[static_cast<std::size_t>(next[static_cast<std::size_t>(p.row_token[rw])]++)] =
        static_cast<int64_t>(rw);
  }
}

}  // namespace frugal::router
