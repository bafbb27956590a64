// The object behind frugal_packer, and batch packing of a unit table,
// shared with streams. Internal to libfrugal.
#pragma once

#include <memory>
#include <span>

#include "packer/pack_plan.hpp"
#include "packer/packer_core.hpp"
#include "packer/unit_table.hpp"

struct frugal_packer {
  std::shared_ptr<frugal::pack::PackerCore> core;
};

namespace frugal::pack {

// Packs every unit of `units` into one plan.
std::unique_ptr<frugal_pack_plan> pack_units(const PackerCore& core, const UnitTable& units);
// Packs sequence i of lengths[i] tokens, with id i, applying the overlong policy.
std::unique_ptr<frugal_pack_plan> pack_lengths(const PackerCore& core, std::span<const int64_t> lengths);

}  // namespace frugal::pack
