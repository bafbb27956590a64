#include "algorithms/best_of.hpp"

#include "algorithms/best_fit.hpp"
#include "algorithms/bounds.hpp"
#include "algorithms/first_fit.hpp"
#include "algorithms/histogram_packing.hpp"
#include "algorithms/order.hpp"
#include "algorithms/refine.hpp"
#include "algorithms/validate.hpp"

namespace frugal::packer {
namespace {

constexpr Algorithm kCandidates[] = {Algorithm::refined, Algorithm::best_fit_decreasing,
                                     Algorithm::first_fit_decreasing, Algorithm::lpfhp, Algorithm::spfhp};

PackResult run_candidate(Algorithm a, std::span<const int64_t> lengths, const PackLimits& limits) {
  switch (a) {
    case Algorithm::refined: return refined(lengths, limits);
    case Algorithm::best_fit_decreasing: return best_fit_decreasing(lengths, limits);
    case Algorithm::lpfhp: return lpfhp(lengths, limits);
    case Algorithm::spfhp: return spfhp(lengths, limits);
    default: return first_fit_decreasing(lengths, limits);
  }
}

}  // namespace

std::span<const Algorithm> best_candidates() noexcept { return kCandidates; }

PackResult best_of(std::span<const int64_t> lengths, const PackLimits& limits, Algorithm* chosen) {
  validate_packable(lengths, limits);
  if (limits.max_len > kMaxBucketedLen) {
    if (chosen != nullptr) *chosen = Algorithm::first_fit_decreasing;
    return first_fit_decreasing(lengths, limits);
  }
  const int64_t bound = pack_lower_bound(length_histogram(lengths, limits.max_len), limits);
  Algorithm winner = kCandidates[0];
  PackResult best = run_candidate(winner, lengths, limits);
  for (const Algorithm a : std::span(kCandidates).subspan(1)) {
    if (static_cast<int64_t>(best.packs()) <= bound) break;
    PackResult r = run_candidate(a, lengths, limits);
    if (r.packs() < best.packs()) {
      best = std::move(r);
      winner = a;
    }
  }
  if (chosen != nullptr) *chosen = winner;
  return best;
}

}  // namespace frugal::packer
