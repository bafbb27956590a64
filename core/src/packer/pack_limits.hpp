// The limits every packer obeys, read by the core from a packer's options
// (max_len, max_per_pack, overlong, seed), and the strategy's own options:
// the rest, handed to the plugin. Internal to libfrugal.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "frugal/types.h"

namespace frugal::pack {

enum class Overlong { error, truncate, split };

struct Limits {
  int64_t max_len = 0;       // > 0
  int64_t max_per_pack = 0;  // >= 0, 0 = unlimited
  Overlong overlong = Overlong::error;
  uint64_t seed = 0;
};

// Reads and validates the core's keys; INVALID_ARGUMENT names the option.
Limits read_limits(const frugal_options* options);

// A copy of `options` without the core's keys (never NULL; may be empty).
using OptionsPtr = std::unique_ptr<frugal_options, void (*)(frugal_options*)>;
OptionsPtr strategy_options(const frugal_options* options);

// Units a sequence of `length` (>= 1) tokens becomes: ceil(length / max_len)
// pieces under overlong = split, else 1.
uint64_t units_of(int64_t length, const Limits& limits) noexcept;

// Heap bytes packing holds per unit at its peak, rounded up: a copy of the
// lengths (8), the unit table of split/truncated input (33), the checked
// assignment (24), the plugin's result and scratch (about 48), with the
// plan built from the assignment's arrays. Measured at 10M units: 28-37
// bytes for whole sequences, 105 for split ones.
inline constexpr uint64_t kPeakBytesPerUnit = 128;
// At most this many units in one pack call, whatever the memory.
inline constexpr uint64_t kMaxUnits = uint64_t{1} << 40;

// How many units one pack call may hold: min(kMaxUnits, available memory /
// kPeakBytesPerUnit), available memory being MemAvailable from
// /proc/meminfo, else sysconf(_SC_AVPHYS_PAGES) pages (support/memory, which
// the CLI reads too; ignored when neither is known). `why` spells out the formula for error messages.
struct UnitBudget {
  uint64_t max_units = kMaxUnits;
  std::string why;
};
UnitBudget unit_budget();

// Fails OUT_OF_MEMORY when `units` > budget.max_units, before anything is
// allocated; `where` names the input that reached the total ("bin 3
// (length 1, count 1099511627776)").
void check_units(uint64_t units, const UnitBudget& budget, std::string_view function, std::string_view where);

// The core's keys, for the packer's docs and error messages.
inline constexpr std::string_view kCoreKeys[] = {"max_len", "max_per_pack", "overlong", "seed"};

}  // namespace frugal::pack
