// Packs laid out flat, grouped by pack: the storage behind a plan, and the
// ready queue of a stream. Internal to libfrugal.
#pragma once

#include <cstdint>
#include <vector>

namespace frugal::pack {

struct GroupedPacks {
  std::vector<int64_t> pack_offsets{0};  // packs + 1
  std::vector<int64_t> sequence_ids;     // per unit, grouped by pack
  std::vector<int64_t> token_offsets;    // per unit: first token within its sequence
  std::vector<int64_t> unit_lengths;     // per unit
  // Overlong bookkeeping per unit, empty when nothing was cut: tokens cut
  // from the unit's sequence by truncation (on its only unit), and 1 on the
  // first piece of a split sequence.
  std::vector<int64_t> cut_tokens;
  std::vector<uint8_t> split_head;

  [[nodiscard]] std::size_t packs() const noexcept { return pack_offsets.size() - 1; }
  [[nodiscard]] std::size_t units() const noexcept { return unit_lengths.size(); }
};

}  // namespace frugal::pack
