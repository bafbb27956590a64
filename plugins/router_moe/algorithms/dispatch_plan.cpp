#include "algorithms/dispatch_plan.hpp"

#include <algorithm>

namespace frugal::router {
namespace {

using Index = std::vector<int64_t>;

// Slots sorted expert-major, stable (a counting sort over the slot order,
// which is token order). Returns the sorted slots; offsets gets [E + 1].
Index sort_slots_by_expert(const Routing& r, Index& demand, Index& offsets) {
  const auto E = static_cast<std::size_t>(r.experts);
  demand.assign(E, 0);
  for (const int32_t e : r.expert) ++demand[static_cast<std::size_t>(e)];
  offsets.assign(E + 1, 0);
  for (std::size_t e = 0; e < E; ++e) offsets[e + 1] = offsets[e] + demand[e];
  Index sorted(r.expert.size());
  Index next(offsets.begin(), offsets.end() - 1);
  for (std::size_t s = 0; s < r.expert.size(); ++s) {
    sorted[static_cast<std::size_t>(next[static_cast<std::size_t>(r.expert[s])]++)] = static_cast<int64_t>(s);
  }
  return sorted;
}

// Keeps `capacity` of the expert's slots (given in slot order) by the
// policy; the kept ones stay in slot order. Returns how many are kept.
std::size_t keep(std::span<int64_t> slots, const Routing& r, DropPolicy policy, int64_t capacity) {
  const auto c = static_cast<std::size_t>(capacity);
  if (policy == DropPolicy::dropless || slots.size() <= c) return slots.size();
  if (policy == DropPolicy::by_probability) {
    // Highest weight first; equal weights by slot, i.e. by token: a strict
    // total order, so the kept set is unique.
    std::nth_element(slots.begin(), slots.begin() + static_cast<std::ptrdiff_t>(c), slots.end(),
                     [&](int64_t a, int64_t b) {
                       const float wa = r.weight[static_cast<std::size_t>(a)];
                       const float wb = r.weight[static_cast<std::size_t>(b)];
                       return wa != wb ? wa > wb : a < b;
                     });
    std::sort(slots.begin(), slots.begin() + static_cast<std::ptrdiff_t>(c));
  }
  return c;  // by_position: the first c in slot order
}

}  // namespace

DispatchPlan build_dispatch_plan(const Routing& r, const CapacityOptions& capacity) {
  validate(r);
  DispatchPlan p;
  p.tokens = r.tokens;
  p.experts = r.experts;
  p.k = r.k;
  Index demand_offsets;
  Index sorted = sort_slots_by_expert(r, p.expert_demand, demand_offsets);
  const int64_t cap = capacity.policy == DropPolicy::dropless
                          ? r.slots()
                          : expert_capacity(r.tokens, r.k, r.experts, capacity.capacity_factor);

  const auto E = static_cast<std::size_t>(r.experts);
  p.expert_counts.assign(E, 0);
  p.expert_offsets.assign(E + 1, 0);
  p.slot_row.assign(static_cast<std::size_t>(r.slots()), -1);
  p.dropped.assign(static_cast<std::size_t>(r.slots()), 1);
  int64_t row = 0;
  for (std::size_t e = 0; e < E; ++e) {
    const auto seg = std::span<int64_t>(sorted).subspan(static_cast<std::size_t>(demand_offsets[e]),
                                                        static_cast<std::size_t>(p.expert_demand[e]));
    const std::size_t kept = keep(seg, r, capacity.policy, cap);
    for (std::size_t i = 0; i < kept; ++i) {
      p.slot_row[static_cast<std::size_t>(seg[i])] = row++;
      p.dropped[static_cast<std::size_t>(seg[i])] = 0;
    }
    p.expert_counts[e] = static_cast<int64_t>(kept);
    p.expert_offsets[e + 1] = row;
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
  Index next(p.token_offsets.begin(), p.token_offsets.end() - 1);
  p.token_rows.resize(p.row_token.size());
  for (std::size_t rw = 0; rw < p.row_token.size(); ++rw) {
    p.token_rows[static_cast<std::size_t>(next[static_cast<std::size_t>(p.row_token[rw])]++)] =
        static_cast<int64_t>(rw);
  }
}

}  // namespace frugal::router
