#include "algorithms/assemble.hpp"

namespace frugal::packer {

PackResult assemble_result(std::span<const int64_t> lengths, std::span<const int64_t> order,
                           std::span<const int64_t> pack_of, int64_t pack_count) {
  const auto packs = static_cast<std::size_t>(pack_count);
  PackResult r;
  r.offsets.assign(packs + 1, 0);
  r.tokens.assign(packs, 0);
  r.items.resize(pack_of.size());
  for (std::size_t k = 0; k < pack_of.size(); ++k) {
    const auto p = static_cast<std::size_t>(pack_of[k]);
    const auto seq = order.empty() ? k : static_cast<std::size_t>(order[k]);
    ++r.offsets[p + 1];
    r.tokens[p] += lengths[seq];
  }
  for (std::size_t p = 0; p < packs; ++p) r.offsets[p + 1] += r.offsets[p];
  std::vector<int64_t> cursor(r.offsets.begin(), r.offsets.end() - 1);
  for (std::size_t k = 0; k < pack_of.size(); ++k) {
    const auto p = static_cast<std::size_t>(pack_of[k]);
    const auto seq = order.empty() ? static_cast<int64_t>(k) : order[k];
    r.items[static_cast<std::size_t>(cursor[p]++)] = seq;
  }
  return r;
}

}  // namespace frugal::packer
