// Routing one batch whose tokens are spread over the ranks of an
// expert-parallel group, with the decisions one router would take on the
// concatenated tokens of ranks 0 .. W-1 (rank r's token t is the group's
// token offset(r) + t):
//   - every token's choice needs only its own logits (and the bias, equal on
//     every rank), so each rank routes its own tokens;
//   - what couples tokens is capacity: an expert over capacity keeps its
//     first C assignments in group order (by_position: each rank knows how
//     many of an expert's assignments come before its own from the gathered
//     demand), or its C best (by_probability, expert choice). For the best
//     C, each rank offers the expert's owner its own best min(C, n) keys (the
//     group's best C are among them), the owner finds the C-th best key of
//     the group, and every rank receives every expert's cut-off: a key
//     keeps iff no worse than the cut-off. Keys are unique (the group's
//     slot or token breaks ties), so exactly C are kept, the same set the
//     single router keeps.
// The collectives go through GroupComm, which the plugin implements over a
// frugal_comm (no ABI types here).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/capacity.hpp"
#include "algorithms/dispatch_plan.hpp"
#include "algorithms/expert_choice.hpp"
#include "algorithms/types.hpp"

namespace frugal::router {

// The experts rank `rank` of `ranks` owns: E / W each, the first E % W
// ranks one more, in contiguous blocks (FRUGAL_ROUTE_EP_FIRST / _EXPERTS).
struct ExpertBlock {
  int64_t first = 0;
  int64_t count = 0;
  [[nodiscard]] bool holds(int64_t e) const noexcept { return e >= first && e < first + count; }
};
[[nodiscard]] ExpertBlock expert_block(int64_t experts, int64_t ranks, int64_t rank);

// Packed offsets of consecutive blocks of `counts` elements (the "v"
// collectives' displacements).
[[nodiscard]] std::vector<std::size_t> displacements(std::span<const std::size_t> counts);

// Element types the group moves.
enum class Payload { i64, f32, bf16 };
[[nodiscard]] std::size_t payload_bytes(Payload p);

// The collectives of one group; every rank calls each in the same order.
// Implementations throw on failure (a dead or late rank, a timeout).
class GroupComm {
 public:
  virtual ~GroupComm() = default;
  [[nodiscard]] virtual int64_t rank() const = 0;
  [[nodiscard]] virtual int64_t ranks() const = 0;
  // Every rank's `mine` (the same length on all), rank-major.
  virtual std::vector<int64_t> all_gather(std::span<const int64_t> mine) = 0;
  // Every rank's `mine`, counts[r] elements from rank r, rank-major.
  virtual std::vector<int64_t> all_gather_v(std::span<const int64_t> mine, std::span<const std::size_t> counts) = 0;
  // send[send_displs[r] ...][send_counts[r] elements] to rank r; rank r's
  // block lands at recv[recv_displs[r]] (recv_counts[r] elements). Counts
  // and displacements in elements of `payload`.
  virtual void all_to_all_v(Payload payload, const void* send, std::span<const std::size_t> send_counts,
                            std::span<const std::size_t> send_displs, void* recv,
                            std::span<const std::size_t> recv_counts, std::span<const std::size_t> recv_displs) = 0;
};

// What every rank routed, gathered once per route (one all-gather).
struct GroupTotals {
  int64_t rank = 0;
  int64_t ranks = 0;
  int64_t experts = 0;
  std::vector<int64_t> tokens;        // [W]
  std::vector<int64_t> demand;        // [W * E] each rank's assignments per expert
  std::vector<int64_t> group_demand;  // [E]
  std::vector<double> prob_sum;       // [E] the ranks' sums added in rank order
  double lse_square_sum = 0.0;        // likewise
  int64_t group_tokens = 0;
  int64_t token_offset = 0;  // this rank's first token in the group's numbering

  [[nodiscard]] int64_t demand_of(int64_t r, int64_t e) const {
    return demand[static_cast<std::size_t>(r * experts + e)];
  }
};
[[nodiscard]] GroupTotals gather_totals(GroupComm& comm, int64_t tokens, std::span<const int64_t> demand,
                                        std::span<const double> prob_sum, double lse_square_sum);

// Token choice: which of this rank's slots the group keeps under `capacity`
// (its C over the group's tokens). Collective (by_probability only).
[[nodiscard]] std::vector<uint8_t> group_keep(const Routing& routing, const ExpertSlots& by_expert,
                                              const GroupTotals& totals, const CapacityOptions& capacity,
                                              GroupComm& comm);

// Expert choice: each expert's picks among this rank's tokens (rising),
// with C = capacity over the group. Collective.
[[nodiscard]] std::vector<std::vector<int64_t>> group_picks(const ExpertChoiceScores& scores, const GroupTotals& totals,
                                                            int64_t capacity, GroupComm& comm, unsigned threads);

// Each rank's kept rows per expert ([W, E], rank-major). Collective.
[[nodiscard]] std::vector<int64_t> gather_rows(GroupComm& comm, std::span<const int64_t> expert_counts);

}  // namespace frugal::router
