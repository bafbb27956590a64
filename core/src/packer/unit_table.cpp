#include "packer/unit_table.hpp"

#include "error.hpp"

namespace frugal::pack {

void UnitTable::reserve(std::size_t units) {
  ids_.reserve(units);
  offsets_.reserve(units);
  lengths_.reserve(units);
  cut_.reserve(units);
  head_.reserve(units);
}

void UnitTable::push(int64_t id, int64_t offset, int64_t length, int64_t cut, bool head) {
  if (offset != 0 || head) pieces_ = true;
  if (cut != 0) cuts_ = true;
  if (head) heads_ = true;
  ids_.push_back(id);
  offsets_.push_back(offset);
  lengths_.push_back(length);
  cut_.push_back(cut);
  head_.push_back(head ? 1 : 0);
}

void UnitTable::add(int64_t id, int64_t length, const char* what) {
  const int64_t max_len = limits_.max_len;
  if (length < 1) fail(FRUGAL_ERR_INVALID_ARGUMENT, "{} {} has length {}; lengths must be >= 1", what, id, length);
  if (length <= max_len) {
    push(id, 0, length, 0, false);
    return;
  }
  switch (limits_.overlong) {
    case Overlong::error:
      fail(FRUGAL_ERR_INVALID_ARGUMENT,
           "{} {} has length {} > max_len {} (option overlong = \"error\"; \"truncate\" or \"split\" accept it)", what,
           id, length, max_len);
    case Overlong::truncate: push(id, 0, max_len, length - max_len, false); return;
    case Overlong::split: {
      // Counted, not stepped: offset + max_len could overflow near INT64_MAX.
      const auto pieces = static_cast<int64_t>(units_of(length, limits_));
      for (int64_t k = 0; k < pieces; ++k) {
        const int64_t offset = k * max_len;
        push(id, offset, std::min(max_len, length - offset), 0, k == 0);
      }
      return;
    }
  }
}

void UnitTable::append_grouped(std::span<const int64_t> order, std::span<const int64_t> pack_offsets,
                               GroupedPacks& out) const {
  const auto base = static_cast<int64_t>(out.units());
  for (std::size_t p = 1; p < pack_offsets.size(); ++p) out.pack_offsets.push_back(base + pack_offsets[p]);
  const std::size_t first = out.units();
  out.sequence_ids.resize(first + order.size());
  out.unit_lengths.resize(first + order.size());
  // Offsets are stored only once some unit is a split piece; earlier units
  // were whole sequences, at offset 0.
  const bool offsets = pieces_ || !out.token_offsets.empty();
  if (offsets) {
    out.token_offsets.resize(first, 0);
    out.token_offsets.resize(first + order.size());
  }
  // Earlier units in `out` had nothing cut when its vectors are empty, so
  // zero-filling up to `first` is exact.
  // The plan keeps the bookkeeping only when something was cut or split;
  // earlier units in `out` then get zeros, which is what they had.
  const bool cuts = cuts_ || !out.cut_tokens.empty();
  const bool heads = heads_ || !out.split_head.empty();
  if (cuts) out.cut_tokens.resize(first + order.size(), 0);
  if (heads) out.split_head.resize(first + order.size(), 0);
  for (std::size_t k = 0; k < order.size(); ++k) {
    const auto u = static_cast<std::size_t>(order[k]);
    out.sequence_ids[first + k] = ids_[u];
    if (offsets) out.token_offsets[first + k] = offsets_[u];
    out.unit_lengths[first + k] = lengths_[u];
    if (cuts) out.cut_tokens[first + k] = cut_[u];
    if (heads) out.split_head[first + k] = head_[u];
  }
}

void UnitTable::retain(std::span<const int64_t> keep) {
  UnitTable kept(limits_);
  kept.reserve(keep.size());
  for (const int64_t k : keep) {
    const auto u = static_cast<std::size_t>(k);
    kept.push(ids_[u], offsets_[u], lengths_[u], cut_[u], head_[u] != 0);
  }
  *this = std::move(kept);
}

void UnitTable::truncate_to(std::size_t size) {
  ids_.resize(size);
  offsets_.resize(size);
  lengths_.resize(size);
  cut_.resize(size);
  head_.resize(size);
}

}  // namespace frugal::pack
