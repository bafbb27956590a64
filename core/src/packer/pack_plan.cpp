#include "packer/pack_plan.hpp"

#include <algorithm>
#include <new>

#include "error.hpp"
#include "packer/pack_bounds.hpp"

namespace frugal::pack {

std::unique_ptr<frugal_pack_plan> make_plan(GroupedPacks&& packs, const Limits& limits, std::string method) {
  auto plan = std::make_unique<frugal_pack_plan>();
  plan->packs = std::move(packs);
  plan->max_len = limits.max_len;
  plan->method = std::move(method);
  const GroupedPacks& g = plan->packs;
  const std::size_t pack_count = g.packs();
  const std::size_t units = g.units();

  plan->pack_tokens.resize(pack_count);
  int64_t total = 0;
  for (std::size_t p = 0; p < pack_count; ++p) {
    int64_t tokens = 0;
    for (auto k = g.pack_offsets[p]; k < g.pack_offsets[p + 1]; ++k)
      tokens += g.unit_lengths[static_cast<std::size_t>(k)];
    plan->pack_tokens[p] = tokens;
    total += tokens;
  }

  frugal_pack_stats& s = plan->stats;
  s.struct_size = sizeof(frugal_pack_stats);
  s.packs = static_cast<int64_t>(pack_count);
  s.units = static_cast<int64_t>(units);
  s.real_tokens = total;
  s.max_len = limits.max_len;
  if (g.token_offsets.empty()) {
    s.sequences = static_cast<int64_t>(units);  // nothing split: one unit per sequence
    if (units > 0) {
      plan->zero_offsets.reset(static_cast<int64_t*>(std::calloc(units, sizeof(int64_t))));
      if (plan->zero_offsets == nullptr) throw std::bad_alloc();
    }
  }
  if (!g.token_offsets.empty()) {
    // Pieces of one sequence may sit anywhere in the plan, and a stream's
    // plan may hold only later pieces: count distinct ids.
    I64Vec ids(g.sequence_ids.begin(), g.sequence_ids.end());
    std::sort(ids.begin(), ids.end());
    s.sequences = static_cast<int64_t>(std::unique(ids.begin(), ids.end()) - ids.begin());
  }
  for (std::size_t u = 0; u < units; ++u) {
    if (!g.cut_tokens.empty() && g.cut_tokens[u] > 0) {
      ++s.truncated_sequences;
      s.truncated_tokens += g.cut_tokens[u];
    }
    if (!g.split_head.empty() && g.split_head[u] != 0) ++s.split_sequences;
  }
  s.lower_bound = (total + limits.max_len - 1) / limits.max_len;
  s.lower_bound_tight = units == 0 ? 0 : pack_lower_bound(g.unit_lengths, limits.max_len, limits.max_per_pack);
  if (pack_count > 0) {
    const double len = static_cast<double>(limits.max_len);
    s.efficiency = static_cast<double>(total) / (static_cast<double>(pack_count) * len);
    s.padding_before = 1.0 - static_cast<double>(total) / (static_cast<double>(units) * len);
    s.padding_after = 1.0 - s.efficiency;
    s.speedup = static_cast<double>(units) / static_cast<double>(pack_count);
  }
  s.method = plan->method.c_str();
  return plan;
}

PackSpan pack_span(const frugal_pack_plan* plan, std::size_t pack, const char* function) {
  require_non_null(plan, function, "plan");
  if (pack >= plan->packs.packs())
    fail(FRUGAL_ERR_OUT_OF_RANGE, "{}: pack {} does not exist (the plan has {} packs)", function, pack,
         plan->packs.packs());
  return PackSpan{plan->packs.pack_offsets[pack], plan->packs.pack_offsets[pack + 1], plan->pack_tokens[pack]};
}

}  // namespace frugal::pack
