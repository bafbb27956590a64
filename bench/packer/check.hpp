// Independent check of a packing result, so that a fast-but-wrong algorithm
// cannot post a good number: the benchmark only reports results that pass.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "algorithms/types.hpp"

namespace frugal::bench::packer {

// Empty when the result is a valid packing of `lengths` under `limits`: every
// index appears exactly once, offsets are consistent, each pack's recorded
// tokens equal the sum of its lengths and fit max_len, no pack is empty or
// holds more than max_per_pack sequences. Otherwise the first problem found.
[[nodiscard]] std::string check_packing(const frugal::packer::PackResult& result, std::span<const int64_t> lengths,
                                        const frugal::packer::PackLimits& limits);

}  // namespace frugal::bench::packer
