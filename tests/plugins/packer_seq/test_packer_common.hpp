// Shared pieces of the packer C API tests: a context with the packer_seq
// plugin, option builders, random length distributions, and a checker that
// verifies every per-pack format of a plan against its assignment,
// independently of the core's own derivations.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frugal/sdk/host.hpp"

namespace frugal::test {

// Every algorithm of packer_seq.
inline const char* const kPackerAlgos[] = {"naive_first_fit", "ffd", "bfd", "spfhp", "lpfhp", "refined", "best"};

enum class Dist { uniform, lognormal_tail, bimodal, short_heavy };
inline const Dist kDists[] = {Dist::uniform, Dist::lognormal_tail, Dist::bimodal, Dist::short_heavy};
const char* dist_name(Dist d);

// `n` lengths in [1, limit] drawn from `d`, shaped relative to `max_len`
// (limit > max_len produces overlong sequences in the long tail).
std::vector<int64_t> make_lengths(Dist d, std::size_t n, int64_t max_len, int64_t limit, uint64_t seed);

// A context with packer_seq loaded from the built-in plugin dir.
host::ContextPtr packer_context();

struct PackerConfig {
  int64_t max_len = 512;
  int64_t max_per_pack = 0;
  const char* algo = "lpfhp";      // nullptr: option not set
  const char* overlong = nullptr;  // nullptr: option not set (the default, "error")
};
host::OptionsPtr packer_options(const PackerConfig& config);
host::PackerPtr make_seq_packer(frugal_context* context, const PackerConfig& config);

host::PackPlanPtr pack(frugal_packer* packer, const std::vector<int64_t>& lengths);
frugal_pack_stats stats_of(const frugal_pack_plan* plan);
frugal_pack_plan_view view_of(const frugal_pack_plan* plan);

// One unit of a plan, as the view reports it.
struct Unit {
  int64_t pack;
  int64_t sequence;
  int64_t offset;
  int64_t length;
};
std::vector<Unit> units_of(const frugal_pack_plan* plan);

// Token and label ids of the caller's arrays: unique per (sequence, position).
inline int64_t token_at(int64_t sequence, int64_t position) { return sequence * 1000003 + position + 7; }
inline int64_t label_at(int64_t sequence, int64_t position) { return -token_at(sequence, position); }

// The caller's arrays for gather: every sequence's tokens (token_at) and
// labels (label_at) back to back, sequence s at offsets[s] .. offsets[s+1].
struct GatherArrays {
  std::vector<int64_t> tokens, labels, offsets;
  explicit GatherArrays(const std::vector<int64_t>& lengths);
};

// Checks every format of every pack of `plan` against its view: limits,
// cu_seqlens and max_seqlen, position ids, segment ids, the dense mask
// (on a sample of packs: it costs side^2), the gather of tokens and labels
// (with labels and mask_first_label=1, and with labels NULL and
// mask_first_label=0), and the statistics derived from the view. Sequence
// ids must be below sequence_lengths.size(); sequence_lengths gives the
// caller's full length of each sequence, for the gather arrays (built
// from it unless `arrays`, built from the same lengths, is given).
void check_plan(const frugal_pack_plan* plan, const PackerConfig& config, const std::vector<int64_t>& sequence_lengths,
                const GatherArrays* arrays = nullptr);

// Checks that `units` cover every sequence of `lengths` under the overlong
// policy: exactly one unit (error; truncate: its first max_len tokens), or
// contiguous pieces in order covering every token exactly once (split).
void check_coverage(const std::vector<Unit>& units, const std::vector<int64_t>& lengths, const PackerConfig& config);

// Every field of two views' arrays equal.
bool same_views(const frugal_pack_plan_view& a, const frugal_pack_plan_view& b);

}  // namespace frugal::test
