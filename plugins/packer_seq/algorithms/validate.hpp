// Input validation shared by every algorithm; throws PackError.
#pragma once

#include <cstdint>
#include <span>

#include "algorithms/types.hpp"

namespace frugal::packer {

// max_len > 0, max_per_pack >= 0.
void validate_limits(const PackLimits& limits);
// Non-empty, every length > 0 ("sequence 17 has length 0").
void validate_positive_lengths(std::span<const int64_t> lengths);
// validate_limits + validate_positive_lengths + every length <= max_len.
void validate_packable(std::span<const int64_t> lengths, const PackLimits& limits);

}  // namespace frugal::packer
