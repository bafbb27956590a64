#include "algorithms/group_route.hpp"

#include <algorithm>
#include <bit>
#include <functional>
#include <string>

#include "algorithms/parallel.hpp"

namespace frugal::router {
namespace {

using Counts = std::vector<std::size_t>;

// An assignment's rank in an expert's order: higher value first, then the
// lower group id (slot or token). Unique ids make it a strict total order.
struct Key {
  float value = 0.0f;
  int64_t id = 0;
};
bool better(const Key& a, const Key& b) { return a.value != b.value ? a.value > b.value : a.id < b.id; }
// Keys travel as two int64 each: the value's bits, then the id.
int64_t value_bits(float v) { return static_cast<int64_t>(std::bit_cast<int32_t>(v)); }
float value_of(int64_t bits) { return std::bit_cast<float>(static_cast<int32_t>(bits)); }

// The group's cut-off key of every expert with limited[e]: each rank offers
// `offers[e]` (its best keys of expert e, offer_count(r, e) of them on rank
// r, a count every rank can compute) to the expert's owner, which keeps the
// `capacity`-th best of the group. Returns [E] cut-offs (unlimited experts:
// a key nothing is worse than is never consulted). Two collectives.
std::vector<Key> group_cutoffs(GroupComm& comm, const GroupTotals& g, std::span<const uint8_t> limited,
                               int64_t capacity, const std::vector<std::vector<Key>>& offers,
                               const std::function<int64_t(int64_t, int64_t)>& offer_count) {
  const int64_t W = g.ranks;
  const int64_t E = g.experts;
  const ExpertBlock mine = expert_block(E, W, g.rank);
  std::vector<int64_t> send;
  Counts send_counts(static_cast<std::size_t>(W), 0);
  for (int64_t q = 0; q < W; ++q) {
    const ExpertBlock theirs = expert_block(E, W, q);
    for (int64_t e = theirs.first; e < theirs.first + theirs.count; ++e) {
      if (limited[static_cast<std::size_t>(e)] == 0) continue;
      for (const Key& k : offers[static_cast<std::size_t>(e)]) {
        send.push_back(value_bits(k.value));
        send.push_back(k.id);
      }
      send_counts[static_cast<std::size_t>(q)] += 2 * offers[static_cast<std::size_t>(e)].size();
    }
  }
  Counts recv_counts(static_cast<std::size_t>(W), 0);
  for (int64_t r = 0; r < W; ++r)
    for (int64_t e = mine.first; e < mine.first + mine.count; ++e)
      if (limited[static_cast<std::size_t>(e)] != 0)
        recv_counts[static_cast<std::size_t>(r)] += 2 * static_cast<std::size_t>(offer_count(r, e));
  const Counts send_displs = displacements(send_counts);
  const Counts recv_displs = displacements(recv_counts);
  std::vector<int64_t> recv(recv_displs.back() + recv_counts.back());
  comm.all_to_all_v(Payload::i64, send.data(), send_counts, send_displs, recv.data(), recv_counts, recv_displs);

  // Owner: the capacity-th best of each limited local expert.
  std::vector<int64_t> mine_cut(static_cast<std::size_t>(2 * mine.count), 0);
  std::vector<std::vector<Key>> pooled(static_cast<std::size_t>(mine.count));
  for (int64_t r = 0; r < W; ++r) {
    std::size_t at = recv_displs[static_cast<std::size_t>(r)];
    for (int64_t e = mine.first; e < mine.first + mine.count; ++e) {
      if (limited[static_cast<std::size_t>(e)] == 0) continue;
      auto& pool = pooled[static_cast<std::size_t>(e - mine.first)];
      for (int64_t i = 0; i < offer_count(r, e); ++i, at += 2) pool.push_back(Key{value_of(recv[at]), recv[at + 1]});
    }
  }
  for (int64_t j = 0; j < mine.count; ++j) {
    auto& pool = pooled[static_cast<std::size_t>(j)];
    if (limited[static_cast<std::size_t>(mine.first + j)] == 0) continue;
    if (static_cast<int64_t>(pool.size()) < capacity)
      throw RouterError("expert " + std::to_string(mine.first + j) + " was offered " + std::to_string(pool.size()) +
                        " keys for a capacity of " + std::to_string(capacity) + " (ranks disagree on the step?)");
    const auto cut = pool.begin() + static_cast<std::ptrdiff_t>(capacity - 1);
    std::nth_element(pool.begin(), cut, pool.end(), better);
    mine_cut[static_cast<std::size_t>(2 * j)] = value_bits(cut->value);
    mine_cut[static_cast<std::size_t>(2 * j + 1)] = cut->id;
  }
  Counts gather_counts(static_cast<std::size_t>(W));
  for (int64_t r = 0; r < W; ++r)
    gather_counts[static_cast<std::size_t>(r)] = 2 * static_cast<std::size_t>(expert_block(E, W, r).count);
  // Blocks are contiguous and rank-ordered: rank-major is expert order.
  const std::vector<int64_t> all = comm.all_gather_v(mine_cut, gather_counts);
  std::vector<Key> cutoffs(static_cast<std::size_t>(E));
  for (int64_t e = 0; e < E; ++e)
    cutoffs[static_cast<std::size_t>(e)] =
        Key{value_of(all[static_cast<std::size_t>(2 * e)]), all[static_cast<std::size_t>(2 * e + 1)]};
  return cutoffs;
}

}  // namespace

std::vector<std::size_t> displacements(std::span<const std::size_t> counts) {
  std::vector<std::size_t> displs(counts.size(), 0);
  for (std::size_t i = 1; i < counts.size(); ++i) displs[i] = displs[i - 1] + counts[i - 1];
  return displs;
}

ExpertBlock expert_block(int64_t experts, int64_t ranks, int64_t rank) {
  const int64_t base = experts / ranks;
  const int64_t extra = experts % ranks;
  return ExpertBlock{rank * base + std::min(rank, extra), base + (rank < extra ? 1 : 0)};
}

std::size_t payload_bytes(Payload p) {
  switch (p) {
    case Payload::i64: return 8;
    case Payload::f32: return 4;
    case Payload::bf16: return 2;
  }
  return 1;
}

GroupTotals gather_totals(GroupComm& comm, int64_t tokens, std::span<const int64_t> demand,
                          std::span<const double> prob_sum, double lse_square_sum) {
  GroupTotals g;
  g.rank = comm.rank();
  g.ranks = comm.ranks();
  g.experts = static_cast<int64_t>(demand.size());
  const auto E = static_cast<std::size_t>(g.experts);
  // [tokens, demand[E], prob_sum bits[E], lse_square_sum bits]: doubles
  // travel as their bits, so every rank adds the same values in rank order.
  std::vector<int64_t> mine;
  mine.reserve(2 * E + 2);
  mine.push_back(tokens);
  mine.insert(mine.end(), demand.begin(), demand.end());
  for (const double p : prob_sum) mine.push_back(std::bit_cast<int64_t>(p));
  mine.push_back(std::bit_cast<int64_t>(lse_square_sum));
  const std::vector<int64_t> all = comm.all_gather(mine);
  const std::size_t stride = mine.size();
  g.tokens.resize(static_cast<std::size_t>(g.ranks));
  g.demand.resize(static_cast<std::size_t>(g.ranks) * E);
  g.group_demand.assign(E, 0);
  g.prob_sum.assign(E, 0.0);
  for (std::size_t r = 0; r < static_cast<std::size_t>(g.ranks); ++r) {
    const int64_t* row = all.data() + r * stride;
    g.tokens[r] = row[0];
    if (static_cast<int64_t>(r) < g.rank) g.token_offset += row[0];
    g.group_tokens += row[0];
    for (std::size_t e = 0; e < E; ++e) {
      g.demand[r * E + e] = row[1 + e];
      g.group_demand[e] += row[1 + e];
      g.prob_sum[e] += std::bit_cast<double>(row[1 + E + e]);
    }
    g.lse_square_sum += std::bit_cast<double>(row[1 + 2 * E]);
  }
  return g;
}

std::vector<uint8_t> group_keep(const Routing& r, const ExpertSlots& by_expert, const GroupTotals& g,
                                const CapacityOptions& capacity, GroupComm& comm) {
  std::vector<uint8_t> keep(static_cast<std::size_t>(r.slots()), 0);
  const int64_t E = r.experts;
  const int64_t C =
      capacity.policy == DropPolicy::dropless ? 0 : expert_capacity(g.group_tokens, r.k, E, capacity.capacity_factor);
  std::vector<uint8_t> over(static_cast<std::size_t>(E), 0);
  for (int64_t e = 0; e < E; ++e) over[static_cast<std::size_t>(e)] = C > 0 && g.group_demand[e] > C ? 1 : 0;
  const auto keep_all = [&](int64_t e) {
    for (const int64_t s : by_expert.of(e)) keep[static_cast<std::size_t>(s)] = 1;
  };
  if (capacity.policy != DropPolicy::by_probability) {
    for (int64_t e = 0; e < E; ++e) {
      if (over[static_cast<std::size_t>(e)] == 0) {
        keep_all(e);
        continue;
      }
      // by_position: the group's first C in token order; ranks before this
      // one asked for `before` of them.
      int64_t before = 0;
      for (int64_t q = 0; q < g.rank; ++q) before += g.demand_of(q, e);
      const std::span<const int64_t> slots = by_expert.of(e);
      const int64_t room = std::clamp<int64_t>(C - before, 0, static_cast<int64_t>(slots.size()));
      for (int64_t i = 0; i < room; ++i) keep[static_cast<std::size_t>(slots[static_cast<std::size_t>(i)])] = 1;
    }
    return keep;
  }
  // by_probability: keys are (weight, group slot); offer the best min(C, n).
  const int64_t slot_base = g.token_offset * r.k;
  const auto key_of = [&](int64_t s) { return Key{r.weight[static_cast<std::size_t>(s)], slot_base + s}; };
  std::vector<std::vector<Key>> offers(static_cast<std::size_t>(E));
  for (int64_t e = 0; e < E; ++e) {
    if (over[static_cast<std::size_t>(e)] == 0) continue;
    auto& mine = offers[static_cast<std::size_t>(e)];
    for (const int64_t s : by_expert.of(e)) mine.push_back(key_of(s));
    const auto n = std::min<std::size_t>(mine.size(), static_cast<std::size_t>(C));
    std::nth_element(mine.begin(), mine.begin() + static_cast<std::ptrdiff_t>(n), mine.end(), better);
    mine.resize(n);
  }
  const std::vector<Key> cut =
      group_cutoffs(comm, g, over, C, offers, [&](int64_t q, int64_t e) { return std::min(C, g.demand_of(q, e)); });
  for (int64_t e = 0; e < E; ++e) {
    if (over[static_cast<std::size_t>(e)] == 0) {
      keep_all(e);
      continue;
    }
    for (const int64_t s : by_expert.of(e))
      keep[static_cast<std::size_t>(s)] = better(cut[static_cast<std::size_t>(e)], key_of(s)) ? 0 : 1;
  }
  return keep;
}

std::vector<std::vector<int64_t>> group_picks(const ExpertChoiceScores& s, const GroupTotals& g, int64_t capacity,
                                              GroupComm& comm, unsigned threads) {
  const int64_t C = capacity;
  const int64_t E = s.experts;
  const int64_t T = s.tokens;
  std::vector<std::vector<int64_t>> picks(static_cast<std::size_t>(E));
  if (C >= g.group_tokens) {  // every expert takes every token of the group
    for (auto& p : picks) {
      p.resize(static_cast<std::size_t>(T));
      for (int64_t t = 0; t < T; ++t) p[static_cast<std::size_t>(t)] = t;
    }
    return picks;
  }
  // This rank's best min(C, T) tokens of each expert (rising), as offers.
  const int64_t n = std::min(C, T);
  std::vector<std::vector<Key>> offers(static_cast<std::size_t>(E));
  parallel_blocks(E, 1, threads, [&](int64_t e, int64_t, int64_t) {
    picks[static_cast<std::size_t>(e)] = best_tokens(s.column(e), n);
    const std::span<const float> col = s.column(e);
    for (const int64_t t : picks[static_cast<std::size_t>(e)])
      offers[static_cast<std::size_t>(e)].push_back(Key{col[static_cast<std::size_t>(t)], g.token_offset + t});
  });
  const std::vector<uint8_t> all(static_cast<std::size_t>(E), 1);
  const std::vector<Key> cut =
      group_cutoffs(comm, g, all, C, offers, [&](int64_t q, int64_t) { return std::min(C, g.tokens[q]); });
  for (int64_t e = 0; e < E; ++e) {
    auto& p = picks[static_cast<std::size_t>(e)];
    const auto& o = offers[static_cast<std::size_t>(e)];
    std::size_t kept = 0;
    for (std::size_t i = 0; i < p.size(); ++i)
      if (!better(cut[static_cast<std::size_t>(e)], o[i])) p[kept++] = p[i];
    p.resize(kept);
  }
  return picks;
}

std::vector<int64_t> gather_rows(GroupComm& comm, std::span<const int64_t> expert_counts) {
  return comm.all_gather(expert_counts);
}

}  // namespace frugal::router
