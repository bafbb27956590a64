// Packs laid out flat, grouped by pack: the storage behind a plan, and the
// ready queue of a stream. Internal to libfrugal.
#pragma once

#include <cstdint>
#include <vector>

#include "packer/uninit_vector.hpp"

namespace frugal::pack {

struct GroupedPacks {
  I64Vec pack_offsets{0};  // packs + 1
  I64Vec sequence_ids;     // per unit, grouped by pack
  // Per unit: first token within its sequence. Empty when no unit is a
  // split piece (every offset is 0, and each unit is a whole sequence).
  I64Vec token_offsets;
  I64Vec unit_lengths;  // per unit
  // Overlong bookkeeping per unit, empty when nothing was cut: tokens cut
  // from the unit's sequence by truncation (on its only unit), and 1 on the
  // first piece of a split sequence.
  std::vector<int64_t> cut_tokens;
  std::vector<uint8_t> split_head;

  [[nodiscard]] std::size_t packs() const noexcept { return pack_offsets.size() - 1; }
  [[nodiscard]] std::size_t units() const noexcept { return unit_lengths.size(); }
  [[nodiscard]] int64_t token_offset(std::size_t unit) const noexcept {
    return token_offsets.empty() ? 0 : token_offsets[unit];
  }
};

}  // namespace frugal::pack
