// The units a packer packs: sequences after the overlong policy (truncated,
// or split into pieces of at most max_len). Internal to libfrugal.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "packer/grouped_packs.hpp"
#include "packer/pack_limits.hpp"

namespace frugal::pack {

class UnitTable {
 public:
  explicit UnitTable(const Limits& limits) : limits_(limits) {}

  // Adds sequence `id` of `length` tokens. INVALID_ARGUMENT for length < 1
  // or, under overlong = error, length > max_len; the message names the
  // sequence as "<what> <id>" (e.g. "sequence 17").
  void add(int64_t id, int64_t length, const char* what = "sequence");
  void reserve(std::size_t units);

  [[nodiscard]] std::size_t size() const noexcept { return lengths_.size(); }
  [[nodiscard]] std::span<const int64_t> lengths() const noexcept { return lengths_; }

  // Lays units out in the order given by `order` (unit indices) with pack
  // boundaries `pack_offsets`, appending to `out`.
  void append_grouped(std::span<const int64_t> order, std::span<const int64_t> pack_offsets, GroupedPacks& out) const;

  // Keeps only the units in `keep` (indices, any order); others are dropped.
  void retain(std::span<const int64_t> keep);
  // Drops units from index `size` on (undoing adds).
  void truncate_to(std::size_t size);

 private:
  void push(int64_t id, int64_t offset, int64_t length, int64_t cut, bool head);

  Limits limits_;
  std::vector<int64_t> ids_;
  std::vector<int64_t> offsets_;
  std::vector<int64_t> lengths_;
  std::vector<int64_t> cut_;   // per unit: tokens truncated from its sequence
  std::vector<uint8_t> head_;  // per unit: 1 on the first piece of a split sequence
  bool pieces_ = false;        // some unit is a piece of a split sequence
  bool cuts_ = false;          // some cut_ is nonzero
  bool heads_ = false;         // some head_ is nonzero
};

}  // namespace frugal::pack
