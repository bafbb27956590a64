// frugal_packer_*: packer objects and batch packing.
#include <algorithm>
#include <limits>
#include <memory>
#include <new>
#include <span>
#include <string>

#include <fmt/format.h>

#include "context.hpp"
#include "error.hpp"
#include "frugal/packer.h"
#include "packer/pack_plan.hpp"
#include "packer/packer_api.hpp"
#include "packer/unit_table.hpp"

namespace frugal::pack {

std::unique_ptr<frugal_pack_plan> pack_units(const PackerCore& core, const UnitTable& units) {
  Assignment a = core.pack(units.lengths());
  GroupedPacks grouped;  // pack_offsets starts as {0}
  grouped.pack_offsets.reserve(a.pack_offsets.size());
  units.append_grouped(a.units, a.pack_offsets, grouped);
  return make_plan(std::move(grouped), core.limits(), std::move(a.method));
}

namespace {

// Adds `count` sequences of `length` tokens to the running totals: units
// against the budget, tokens (the plan's real plus cut tokens) against
// int64. `where` names them for the error.
struct InputTotals {
  const Limits& limits;
  UnitBudget budget = unit_budget();
  uint64_t units = 0;
  int64_t tokens = 0;

  template <typename Where>
  void add(int64_t length, uint64_t count, const char* function, Where&& where) {
    const uint64_t pieces = units_of(length, limits);
    uint64_t more = 0;
    if (__builtin_mul_overflow(pieces, count, &more) || __builtin_add_overflow(units, more, &units))
      units = std::numeric_limits<uint64_t>::max();
    if (units > budget.max_units) check_units(units, budget, function, where());
    int64_t t = 0;
    if (__builtin_mul_overflow(length, static_cast<int64_t>(count), &t) || __builtin_add_overflow(tokens, t, &tokens))
      fail(FRUGAL_ERR_OUT_OF_RANGE, "{}: {} brings the input over {} tokens (int64)", function, where(),
           std::numeric_limits<int64_t>::max());
  }
};

// True when every length is already a unit: in [1, max_len]. Throws for a
// length < 1, naming the first one, and for input whose units or tokens
// exceed the limits, before anything is allocated.
bool all_whole_units(std::span<const int64_t> lengths, const Limits& limits) {
  bool whole = true;
  InputTotals totals{limits};
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] < 1)
      fail(FRUGAL_ERR_INVALID_ARGUMENT, "sequence {} has length {}; lengths must be >= 1", i, lengths[i]);
    whole = whole && lengths[i] <= limits.max_len;
    totals.add(lengths[i], 1, "frugal_packer_pack",
               [&] { return fmt::format("sequence {} (length {})", i, lengths[i]); });
  }
  return whole;
}

// Runs a pack call's body; an allocation failure the budget did not
// foresee becomes OUT_OF_MEMORY naming the call and its size (the ABI
// guard alone can only say "out of memory").
template <typename Body>
void naming_out_of_memory(const char* function, uint64_t sequences, Body&& body) {
  try {
    body();
  } catch (const std::bad_alloc&) {
    fail(FRUGAL_ERR_OUT_OF_MEMORY, "{}: out of memory packing {} sequences ({} bytes per unit at the peak)", function,
         sequences, kPeakBytesPerUnit);
  }
}

}  // namespace

// The common case, sequence i is unit i, needs no unit table: the plugin
// reads the caller's array and its assignment becomes the plan's sequence
// ids as is. Only unit lengths are gathered in pack order.
std::unique_ptr<frugal_pack_plan> pack_lengths(const PackerCore& core, std::span<const int64_t> lengths) {
  if (!all_whole_units(lengths, core.limits())) {
    UnitTable units(core.limits());
    units.reserve(lengths.size());
    for (std::size_t i = 0; i < lengths.size(); ++i) units.add(static_cast<int64_t>(i), lengths[i]);
    return pack_units(core, units);
  }
  Assignment a = core.pack(lengths);
  GroupedPacks grouped;
  grouped.unit_lengths = std::move(a.unit_lengths);
  grouped.sequence_ids = std::move(a.units);
  grouped.pack_offsets = std::move(a.pack_offsets);
  return make_plan(std::move(grouped), core.limits(), std::move(a.method));
}

}  // namespace frugal::pack

extern "C" {

FRUGAL_API frugal_error* frugal_packer_create(frugal_context* context, const char* name, const frugal_options* options,
                                              frugal_packer** out) {
  return frugal::guard("frugal_packer_create", [&] {
    frugal::require_non_null(out, "frugal_packer_create", "out");
    auto resolved = frugal::resolve_strategy(context, FRUGAL_KIND_PACKER, name);
    const std::string label = fmt::format("packer '{}'", name);
    frugal::pack::Limits limits;
    try {
      limits = frugal::pack::read_limits(options);
    } catch (const frugal::Error& e) {
      frugal::fail(e.code(), "{}: {}", label, e.what());
    }
    auto core = std::make_shared<frugal::pack::PackerCore>(resolved.plugin, *resolved.record, name, limits);
    const auto strategy_options = frugal::pack::strategy_options(options);
    core->create_instance(strategy_options.get());
    *out = new frugal_packer{std::move(core)};
  });
}

FRUGAL_API frugal_error* frugal_packer_pack(frugal_packer* packer, const int64_t* lengths, size_t count,
                                            frugal_pack_plan** out) {
  constexpr const char* kFn = "frugal_packer_pack";
  return frugal::guard(kFn, [&] {
    frugal::require_non_null(packer, kFn, "packer");
    frugal::require_non_null(out, kFn, "out");
    if (count == 0) frugal::fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: empty input: no sequences to pack", kFn);
    frugal::require_non_null(lengths, kFn, "lengths");
    frugal::pack::naming_out_of_memory(kFn, count, [&] {
      *out = frugal::pack::pack_lengths(*packer->core, std::span<const int64_t>(lengths, count)).release();
    });
  });
}

FRUGAL_API frugal_error* frugal_packer_pack_histogram(frugal_packer* packer, const int64_t* lengths,
                                                      const int64_t* counts, size_t bins, frugal_pack_plan** out) {
  constexpr const char* kFn = "frugal_packer_pack_histogram";
  return frugal::guard(kFn, [&] {
    frugal::require_non_null(packer, kFn, "packer");
    frugal::require_non_null(out, kFn, "out");
    if (bins == 0) frugal::fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: empty histogram: no bins", kFn);
    frugal::require_non_null(lengths, kFn, "lengths");
    frugal::require_non_null(counts, kFn, "counts");
    // The plan lists every unit, so the histogram is expanded: its units
    // are counted against the memory budget first.
    uint64_t total = 0;
    frugal::pack::InputTotals totals{packer->core->limits()};
    for (size_t b = 0; b < bins; ++b) {
      if (counts[b] < 0)
        frugal::fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: bin {} (length {}) has a negative count {}", kFn, b, lengths[b],
                     counts[b]);
      if (counts[b] == 0) continue;
      if (lengths[b] < 1)
        frugal::fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: bin {} has length {}; lengths must be >= 1", kFn, b, lengths[b]);
      total += static_cast<uint64_t>(counts[b]);
      if (total > frugal::pack::kMaxUnits)
        frugal::fail(FRUGAL_ERR_OUT_OF_RANGE, "{}: the histogram holds more than 2^40 sequences (at bin {})", kFn, b);
      totals.add(lengths[b], static_cast<uint64_t>(counts[b]), kFn,
                 [&] { return fmt::format("bin {} (length {}, count {})", b, lengths[b], counts[b]); });
    }
    if (total == 0) frugal::fail(FRUGAL_ERR_INVALID_ARGUMENT, "{}: empty histogram: every count is 0", kFn);
    frugal::pack::naming_out_of_memory(kFn, total, [&] {
      frugal::pack::I64Vec expanded(static_cast<size_t>(total));
      auto cursor = expanded.begin();
      for (size_t b = 0; b < bins; ++b) cursor = std::fill_n(cursor, counts[b], lengths[b]);
      *out = frugal::pack::pack_lengths(*packer->core, expanded).release();
    });
  });
}

FRUGAL_API void frugal_packer_destroy(frugal_packer* packer) { delete packer; }

}  // extern "C"
