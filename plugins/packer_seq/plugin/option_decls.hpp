// The options the packer_seq strategy declares, kept apart from
// the descriptor; they must say exactly what SeqPacker's constructor accepts.
// max_len, max_per_pack, seed and overlong are the core's: it reads them
// and never hands them to the strategy, so they are not declared here.
#pragma once

#include "frugal/plugin.h"

namespace frugal::packer_seq {

// The algorithm used when `algo` is absent. refined: never more packs than
// FFD, within 0.1% of the lower bound on the benchmark's short-mean rows,
// about a second for 16M sequences.
inline constexpr const char* kDefaultAlgorithm = "refined";

extern const frugal_strategy_options_ext kPackerSeqOptions;

}  // namespace frugal::packer_seq
