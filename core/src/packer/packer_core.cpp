#include "packer/packer_core.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "error.hpp"
#include "plugin_call.hpp"

namespace frugal::pack {

PackerCore::PackerCore(std::shared_ptr<LoadedPlugin> plugin, const StrategyRecord& record, std::string strategy,
                       const Limits& limits)
    : strategy_(std::move(strategy)),
      instance_(std::move(plugin), record, fmt::format("packer '{}'", strategy_)),
      limits_(limits) {}

void PackerCore::create_instance(const frugal_options* strategy_options) { instance_.create(strategy_options); }

Assignment PackerCore::pack(std::span<const int64_t> lengths) const {
  const frugal_pack_request request{sizeof(frugal_pack_request), lengths.data(), lengths.size(), limits_.max_len,
                                    limits_.max_per_pack,        limits_.seed};
  Assignment a;
  // Uninitialised: check() reads only what the plugin claims to have
  // written (pack_count + 1 offsets, then the units they span).
  a.units.resize(lengths.size());
  a.pack_offsets.resize(lengths.size() + 1);
  frugal_pack_assignment out{sizeof(frugal_pack_assignment), a.units.data(), a.pack_offsets.data(), 0, nullptr};
  instance_.call(&frugal_packer_vtable::pack, &request, &out);
  if (out.pack_count < 1 || out.pack_count > lengths.size())
    fail(FRUGAL_ERR_INTERNAL, "{}: the plugin returned {} packs for {} units (expected 1..{})", label(), out.pack_count,
         lengths.size(), lengths.size());
  a.pack_offsets.resize(out.pack_count + 1);
  a.method = out.method != nullptr ? std::string(out.method) : strategy_;
  check(lengths, a);
  return a;
}

// The plugin is trusted with nothing: a wrong assignment would silently
// drop or duplicate training data, or overflow a row.
void PackerCore::check(std::span<const int64_t> lengths, Assignment& a) const {
  const auto n = static_cast<int64_t>(lengths.size());
  const auto& off = a.pack_offsets;
  const std::size_t packs = off.size() - 1;
  if (off.front() != 0 || off.back() != n)
    fail(FRUGAL_ERR_INTERNAL, "{}: invalid assignment: pack_offsets must run from 0 to {}, got {} .. {}", label(), n,
         off.front(), off.back());
  for (std::size_t p = 0; p < packs; ++p) {
    if (off[p + 1] <= off[p])
      fail(FRUGAL_ERR_INTERNAL, "{}: invalid assignment: pack {} is empty or its offsets decrease ({} .. {})", label(),
           p, off[p], off[p + 1]);
    if (limits_.max_per_pack > 0 && off[p + 1] - off[p] > limits_.max_per_pack)
      fail(FRUGAL_ERR_INTERNAL, "{}: invalid assignment: pack {} holds {} units > max_per_pack {}", label(), p,
           off[p + 1] - off[p], limits_.max_per_pack);
  }
  // Offsets now rise strictly from 0 to n. One pass over the units in
  // order: each index in range and seen once, its length gathered. The
  // gather jumps around a caller's array of up to 128 MiB, so the loads are
  // prefetched a few dozen units ahead.
  const auto pack_of = [&](std::size_t k) {
    return static_cast<std::size_t>(std::upper_bound(off.begin(), off.end(), static_cast<int64_t>(k)) - off.begin()) -
           1;
  };
  std::vector<uint64_t> seen((lengths.size() + 63) / 64, 0);  // a bitset: 2 MiB for 16M units
  a.unit_lengths.resize(lengths.size());
  constexpr std::size_t kAhead = 32;
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    if (k + kAhead < lengths.size()) {
      const int64_t ahead = a.units[k + kAhead];
      if (ahead >= 0 && ahead < n) __builtin_prefetch(lengths.data() + ahead);
    }
    const int64_t u = a.units[k];
    if (u < 0 || u >= n)
      fail(FRUGAL_ERR_INTERNAL, "{}: invalid assignment: unit index {} in pack {} is out of range [0, {})", label(), u,
           pack_of(k), n);
    uint64_t& word = seen[static_cast<std::size_t>(u) >> 6];
    const uint64_t bit = uint64_t{1} << (u & 63);
    if ((word & bit) != 0) fail(FRUGAL_ERR_INTERNAL, "{}: invalid assignment: unit {} is placed twice", label(), u);
    word |= bit;
    a.unit_lengths[k] = lengths[static_cast<std::size_t>(u)];
  }
  for (std::size_t p = 0; p < packs; ++p) {
    int64_t tokens = 0;
    for (auto k = off[p]; k < off[p + 1]; ++k) tokens += a.unit_lengths[static_cast<std::size_t>(k)];
    if (tokens > limits_.max_len)
      fail(FRUGAL_ERR_INTERNAL, "{}: invalid assignment: pack {} holds {} tokens > max_len {}", label(), p, tokens,
           limits_.max_len);
  }
  // Offsets reach n with every pack non-empty and no unit twice, so every
  // unit was placed; no separate "never placed" scan is needed.
}

}  // namespace frugal::pack
