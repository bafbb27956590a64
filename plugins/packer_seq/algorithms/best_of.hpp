// "best": runs the candidate algorithms and keeps the packing with the
// fewest packs. Every candidate packs the same tokens, so fewest packs is
// highest efficiency.
#pragma once

#include <cstdint>
#include <span>

#include "algorithms/types.hpp"

namespace frugal::packer {

// The candidates in tie-break order: refined, bfd, ffd, lpfhp, spfhp (not
// naive_first_fit, the O(n * packs) reference). refined comes first because
// it is the cheapest and usually the winner, which lets the rest be skipped.
[[nodiscard]] std::span<const Algorithm> best_candidates() noexcept;

// Runs the candidates in order and keeps the first with the fewest packs, so
// the result is deterministic and never has more packs than BFD. When
// refined already reaches the tight lower bound (bounds.hpp) no candidate
// can do better and the rest are skipped. Above the bucketed algorithms'
// max_len limit only ffd runs. chosen (optional) receives the winner.
[[nodiscard]] PackResult best_of(std::span<const int64_t> lengths, const PackLimits& limits,
                                 Algorithm* chosen = nullptr);

}  // namespace frugal::packer
