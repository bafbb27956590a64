#include "check.hpp"

#include <vector>

namespace frugal::bench::packer {

std::string check_packing(const frugal::packer::PackResult& result, std::span<const int64_t> lengths,
                          const frugal::packer::PackLimits& limits) {
  const std::size_t n = lengths.size();
  const std::size_t packs = result.packs();
  if (result.offsets.size() != packs + 1)
    return "offsets has " + std::to_string(result.offsets.size()) + " entries for " + std::to_string(packs) + " packs";
  if (result.offsets.front() != 0) return "offsets[0] is not 0";
  if (result.items.size() != n) {
    return std::to_string(result.items.size()) + " items placed for " + std::to_string(n) + " sequences";
  }
  if (result.offsets.back() != static_cast<int64_t>(n)) return "the last offset is not the item count";
  std::vector<bool> seen(n, false);
  for (std::size_t p = 0; p < packs; ++p) {
    const int64_t begin = result.offsets[p];
    const int64_t end = result.offsets[p + 1];
    const std::string where = "pack " + std::to_string(p);
    if (end <= begin) return where + " is empty or has decreasing offsets";
    if (limits.max_per_pack > 0 && end - begin > limits.max_per_pack) {
      return where + " holds " + std::to_string(end - begin) + " sequences";
    }
    int64_t tokens = 0;
    for (int64_t k = begin; k < end; ++k) {
      const int64_t item = result.items[static_cast<std::size_t>(k)];
      if (item < 0 || static_cast<std::size_t>(item) >= n) return where + " holds index " + std::to_string(item);
      if (seen[static_cast<std::size_t>(item)]) return "sequence " + std::to_string(item) + " is placed twice";
      seen[static_cast<std::size_t>(item)] = true;
      tokens += lengths[static_cast<std::size_t>(item)];
    }
    if (tokens != result.tokens[p]) {
      return where + " records " + std::to_string(result.tokens[p]) + " tokens, holds " + std::to_string(tokens);
    }
    if (tokens > limits.max_len) return where + " holds " + std::to_string(tokens) + " tokens";
  }
  // items.size() == n and no index twice: every index is present.
  return {};
}

}  // namespace frugal::bench::packer
