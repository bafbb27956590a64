#include "algorithms/packer.hpp"

#include "algorithms/best_fit.hpp"
#include "algorithms/best_of.hpp"
#include "algorithms/first_fit.hpp"
#include "algorithms/histogram_packing.hpp"
#include "algorithms/refine.hpp"
#include "algorithms/validate.hpp"

namespace frugal::packer {

PackResult run_algorithm(Algorithm algorithm, std::span<const int64_t> lengths, const PackLimits& limits) {
  switch (algorithm) {
    case Algorithm::naive_first_fit: return naive_first_fit(lengths, limits);
    case Algorithm::first_fit_decreasing: return first_fit_decreasing(lengths, limits);
    case Algorithm::best_fit_decreasing: return best_fit_decreasing(lengths, limits);
    case Algorithm::spfhp: return spfhp(lengths, limits);
    case Algorithm::lpfhp: return lpfhp(lengths, limits);
    case Algorithm::refined: return refined(lengths, limits);
    case Algorithm::best: return best_of(lengths, limits);
  }
  throw PackError("unknown packing algorithm");
}

PackOutput pack_sequences(std::span<const int64_t> lengths, const PackOptions& options) {
  const PackLimits limits{options.max_len, options.max_per_pack, options.seed};
  validate_limits(limits);
  PackOutput out;
  out.input = apply_overlong_policy(lengths, options.max_len, options.overlong);
  out.result = run_algorithm(options.algorithm, out.input.lengths, limits);
  out.stats = compute_stats(out.result, out.input.lengths, limits);
  return out;
}

}  // namespace frugal::packer
