// The limits every packer obeys, read by the core from a packer's options
// (max_len, max_per_pack, overlong, seed), and the strategy's own options:
// the rest, handed to the plugin. Internal to libfrugal.
#pragma once

#include <cstdint>
#include <memory>
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

// The core's keys, for the packer's docs and error messages.
inline constexpr std::string_view kCoreKeys[] = {"max_len", "max_per_pack", "overlong", "seed"};

}  // namespace frugal::pack
