// Shared by the algorithm-library tests: random length distributions and a
// validity check for a PackResult.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/types.hpp"

namespace frugal::packer::test {

enum class Dist { uniform, lognormal_tail, bimodal, short_heavy };
inline constexpr Dist kDists[] = {Dist::uniform, Dist::lognormal_tail, Dist::bimodal, Dist::short_heavy};

const char* dist_name(Dist d);

// n lengths in [1, max_len] from `d`, shaped relative to max_len; the same
// seed gives the same lengths.
std::vector<int64_t> make_lengths(Dist d, std::size_t n, int64_t max_len, uint64_t seed);

// Every index exactly once, tokens/offsets consistent, no empty pack, no pack
// over max_len or max_per_pack, at least the tight lower bound (REQUIREs).
void check_valid(const PackResult& r, std::span<const int64_t> lengths, const PackLimits& limits);

}  // namespace frugal::packer::test
