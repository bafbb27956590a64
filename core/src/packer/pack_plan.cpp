#include "packer/pack_plan.hpp"

#include <algorithm>
#include <new>

#include "error.hpp"

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
    for (auto k = g.pack_offsets[p]; k < g.pack_offsets[p + 1]; ++k) tokens += g.unit_lengths[static_cast<std::size_t>(k)];
    plan->pack_tokens[p] = tokens;
    total += tokens;
  }

  frugal_pack_stats& s = plan->stats;
  s.struct_size = sizeof(frugal_pack_stats);
  s.packs = static_cast<int64_t>(pack_count);
  s.units = static_cast<int64_t>(units);
  s.real_tokens = total;
  s.max_len = limits.max_len;
  int64_t over_half = 0;
  if (g.token_offsets.empty()) {
    s.sequences = static_cast<int64_t>(units);  // nothing split: one unit per sequence
    if (units > 0) {
      plan->zero_offsets.reset(static_cast<int64_t*>(std::calloc(units, sizeof(int64_t))));
      if (plan->zero_offsets == nullptr) throw std::bad_alloc();
    }
  }
  for (std::size_t u = 0; u < units; ++u) {
    if (!g.token_offsets.empty() && g.token_offsets[u] == 0) ++s.sequences;
    if (2 * g.unit_lengths[u] > limits.max_len) ++over_half;
    if (!g.cut_tokens.empty() && g.cut_tokens[u] > 0) {
      ++s.truncated_sequences;
      s.truncated_tokens += g.cut_tokens[u];
    }
    if (!g.split_head.empty() && g.split_head[u] != 0) ++s.split_sequences;
  }
  s.lower_bound = (total + limits.max_len - 1) / limits.max_len;
  s.lower_bound_tight = std::max(s.lower_bound, over_half);
  if (limits.max_per_pack > 0) {
    const auto n = static_cast<int64_t>(units);
    s.lower_bound_tight = std::max(s.lower_bound_tight, (n + limits.max_per_pack - 1) / limits.max_per_pack);
  }
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
