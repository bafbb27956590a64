#include "algorithms/best_fit.hpp"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "algorithms/assemble.hpp"
#include "algorithms/occupancy_set.hpp"
#include "algorithms/order.hpp"
#include "algorithms/validate.hpp"

namespace frugal::packer {

PackResult best_fit_decreasing(std::span<const int64_t> lengths, const PackLimits& limits) {
  validate_packable(lengths, limits);
  if (limits.max_len > kMaxBucketedLen) {
    throw PackError("max_len " + std::to_string(limits.max_len) + " exceeds the best-fit limit " +
                    std::to_string(kMaxBucketedLen));
  }
  const std::vector<int64_t> order = decreasing_order(lengths, limits.max_len);
  const auto max_len = static_cast<std::size_t>(limits.max_len);
  // bucket[r]: open packs with residual r (min-heap on pack number).
  std::vector<std::vector<int64_t>> bucket(max_len + 1);
  OccupancySet open(max_len + 1);
  std::vector<int64_t> residual;
  std::vector<int64_t> members;
  std::vector<int64_t> pack_of(order.size());
  const auto heap_less = std::greater<int64_t>{};

  for (std::size_t k = 0; k < order.size(); ++k) {
    const int64_t len = lengths[static_cast<std::size_t>(order[k])];
    const std::size_t r = open.next_at_least(static_cast<std::size_t>(len));
    int64_t p = 0;
    if (r == OccupancySet::npos) {
      p = static_cast<int64_t>(residual.size());
      residual.push_back(limits.max_len);
      members.push_back(0);
    } else {
      auto& b = bucket[r];
      std::pop_heap(b.begin(), b.end(), heap_less);
      p = b.back();
      b.pop_back();
      if (b.empty()) open.erase(r);
    }
    const auto pi = static_cast<std::size_t>(p);
    residual[pi] -= len;
    ++members[pi];
    pack_of[k] = p;
    if (residual[pi] > 0 && (limits.max_per_pack == 0 || members[pi] < limits.max_per_pack)) {
      auto& b = bucket[static_cast<std::size_t>(residual[pi])];
      b.push_back(p);
      std::push_heap(b.begin(), b.end(), heap_less);
      open.insert(static_cast<std::size_t>(residual[pi]));
    }
  }
  return assemble_result(lengths, order, pack_of, static_cast<int64_t>(residual.size()));
}

}  // namespace frugal::packer
