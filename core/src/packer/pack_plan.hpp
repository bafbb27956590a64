// The object behind frugal_pack_plan: grouped packs, per-pack token counts
// and the statistics, computed once. Immutable after make_plan.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "frugal/packer.h"
#include "packer/grouped_packs.hpp"
#include "packer/pack_limits.hpp"

struct frugal_pack_plan {
  struct FreeDeleter {
    void operator()(int64_t* p) const noexcept { std::free(p); }
  };
  frugal::pack::GroupedPacks packs;
  // The view's token_offsets when packs.token_offsets is empty (all 0):
  // calloc'd, so the pages cost nothing until a reader touches them.
  std::unique_ptr<int64_t, FreeDeleter> zero_offsets;
  frugal::pack::I64Vec pack_tokens;
  int64_t max_len = 0;
  std::string method;
  frugal_pack_stats stats{};  // method points into `method`
};

namespace frugal::pack {

std::unique_ptr<frugal_pack_plan> make_plan(GroupedPacks&& packs, const Limits& limits, std::string method);

// Pack `pack` of `plan`, or OUT_OF_RANGE naming `function`.
struct PackSpan {
  int64_t first;  // index of the pack's first unit
  int64_t end;    // one past its last unit
  int64_t tokens;
};
PackSpan pack_span(const frugal_pack_plan* plan, std::size_t pack, const char* function);

}  // namespace frugal::pack
