#include "algorithms/first_fit.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "algorithms/assemble.hpp"
#include "algorithms/best_fit.hpp"
#include "algorithms/decreasing_fit.hpp"
#include "algorithms/order.hpp"
#include "algorithms/tournament_tree.hpp"
#include "algorithms/validate.hpp"

namespace frugal::packer {
namespace {

template <class T>
PackResult first_fit_tree(std::span<const int64_t> lengths, std::span<const int64_t> order, const PackLimits& limits) {
  const auto n = order.size();
  TournamentTree<T> tree(static_cast<T>(limits.max_len));
  std::vector<int64_t> pack_of(n);
  std::vector<int64_t> members;  // per pack, only tracked when max_per_pack > 0
  int64_t packs = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const int64_t len = lengths[static_cast<std::size_t>(order[k])];
    const std::size_t p = tree.leftmost_at_least(static_cast<T>(len));
    if (static_cast<int64_t>(p) == packs) ++packs;
    T residual = static_cast<T>(tree.get(p) - static_cast<T>(len));
    if (limits.max_per_pack > 0) {
      if (members.size() <= p) members.resize(p + 1, 0);
      if (++members[p] == limits.max_per_pack) residual = 0;  // closed: nothing fits
    }
    tree.set(p, residual);
    pack_of[k] = static_cast<int64_t>(p);
  }
  return assemble_result(lengths, order, pack_of, packs);
}

}  // namespace

PackResult naive_first_fit(std::span<const int64_t> lengths, const PackLimits& limits) {
  validate_packable(lengths, limits);
  std::vector<int64_t> residual;
  std::vector<int64_t> members;
  std::vector<int64_t> pack_of(lengths.size());
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    std::size_t p = 0;
    while (p < residual.size() &&
           (residual[p] < lengths[i] || (limits.max_per_pack > 0 && members[p] >= limits.max_per_pack))) {
      ++p;
    }
    if (p == residual.size()) {
      residual.push_back(limits.max_len);
      members.push_back(0);
    }
    residual[p] -= lengths[i];
    ++members[p];
    pack_of[i] = static_cast<int64_t>(p);
  }
  return assemble_result(lengths, {}, pack_of, static_cast<int64_t>(residual.size()));
}

PackResult first_fit_decreasing(std::span<const int64_t> lengths, const PackLimits& limits) {
  validate_packable(lengths, limits);
  // Residual buckets cost O(max_len) memory whatever n is; past that point
  // (or for huge max_len) the tree over packs is the cheaper structure.
  const int64_t n = static_cast<int64_t>(lengths.size());
  if (limits.max_len <= std::min(kMaxBucketedLen, std::max<int64_t>(int64_t{1} << 16, 4 * n))) {
    if (lengths.size() < std::numeric_limits<uint32_t>::max()) {
      return DecreasingFit<uint32_t, FitRule::first>(lengths, limits).run();
    }
    return DecreasingFit<uint64_t, FitRule::first>(lengths, limits).run();
  }
  const std::vector<int64_t> order = decreasing_order(lengths, limits.max_len);
  if (limits.max_len <= std::numeric_limits<uint32_t>::max()) {
    return first_fit_tree<uint32_t>(lengths, order, limits);
  }
  return first_fit_tree<int64_t>(lengths, order, limits);
}

}  // namespace frugal::packer
