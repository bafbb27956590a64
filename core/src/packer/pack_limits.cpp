#include "packer/pack_limits.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "available_memory.hpp"
#include "error.hpp"
#include "frugal/options.h"
#include "options.hpp"

namespace frugal::pack {
namespace {

int64_t get_int(const frugal_options* options, const char* name, int64_t fallback) {
  int64_t value = 0;
  rethrow_if_error(frugal_options_get_int(options, name, fallback, &value), "");
  return value;
}

double gib(double bytes) { return bytes / static_cast<double>(uint64_t{1} << 30); }

}  // namespace

uint64_t units_of(int64_t length, const Limits& limits) noexcept {
  if (limits.overlong != Overlong::split || length <= limits.max_len) return 1;
  return static_cast<uint64_t>(length / limits.max_len + (length % limits.max_len != 0 ? 1 : 0));
}

UnitBudget unit_budget() {
  UnitBudget budget;
  budget.why = "at most 2^40 units";
  const auto [bytes, source] = memory::available_memory();
  if (bytes == 0) return budget;
  const uint64_t by_memory = bytes / kPeakBytesPerUnit;
  if (by_memory >= kMaxUnits) return budget;
  budget.max_units = by_memory;
  budget.why = fmt::format("{:.2f} GiB of memory available ({}) / {} bytes per unit while packing",
                           gib(static_cast<double>(bytes)), source, kPeakBytesPerUnit);
  return budget;
}

void check_units(uint64_t units, const UnitBudget& budget, std::string_view function, std::string_view where) {
  if (units <= budget.max_units) return;
  fail(FRUGAL_ERR_OUT_OF_MEMORY,
       "{}: {} brings the input to {} units (about {:.2f} GiB to pack), over the limit of {} units ({})", function,
       where, units, gib(static_cast<double>(units) * static_cast<double>(kPeakBytesPerUnit)), budget.max_units,
       budget.why);
}

Limits read_limits(const frugal_options* options) {
  if (options == nullptr || frugal_options_type(options, "max_len") == 0)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "option 'max_len' (tokens per pack) is required");
  Limits limits;
  limits.max_len = get_int(options, "max_len", 0);
  if (limits.max_len <= 0) fail(FRUGAL_ERR_INVALID_ARGUMENT, "option 'max_len' must be > 0, got {}", limits.max_len);
  // cu_seqlens are int32 (the flash-attention format), so a pack's token
  // offsets must fit.
  if (limits.max_len > std::numeric_limits<int32_t>::max())
    fail(FRUGAL_ERR_OUT_OF_RANGE, "option 'max_len' must fit int32 (cu_seqlens are int32), got {}", limits.max_len);
  limits.max_per_pack = get_int(options, "max_per_pack", 0);
  if (limits.max_per_pack < 0)
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "option 'max_per_pack' must be >= 0 (0 = unlimited), got {}",
         limits.max_per_pack);
  limits.seed = static_cast<uint64_t>(get_int(options, "seed", 0));
  const char* overlong = nullptr;
  rethrow_if_error(frugal_options_get_string(options, "overlong", "error", &overlong), "");
  const std::string_view policy = overlong;
  if (policy == "error") {
    limits.overlong = Overlong::error;
  } else if (policy == "truncate") {
    limits.overlong = Overlong::truncate;
  } else if (policy == "split") {
    limits.overlong = Overlong::split;
  } else {
    fail(FRUGAL_ERR_INVALID_ARGUMENT, "option 'overlong' must be \"error\", \"truncate\" or \"split\", got \"{}\"",
         policy);
  }
  return limits;
}

OptionsPtr strategy_options(const frugal_options* options) {
  OptionsPtr copy(new frugal_options(), &frugal_options_destroy);
  if (options == nullptr) return copy;
  for (const auto& entry : options->entries) {
    const bool core_key = std::find(std::begin(kCoreKeys), std::end(kCoreKeys), entry.name) != std::end(kCoreKeys);
    if (!core_key) copy->entries.push_back(entry);
  }
  return copy;
}

}  // namespace frugal::pack
