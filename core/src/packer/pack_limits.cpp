#include "packer/pack_limits.hpp"

#include <algorithm>
#include <limits>
#include <string>

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

}  // namespace

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
