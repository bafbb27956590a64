#include "epoch_order.hpp"

#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "splitmix.hpp"

namespace frugal_demo {
namespace {

// Cursor layout: version, kind, then epoch, index and the train count as
// little-endian u64 (the count refuses a cursor of another corpus).
constexpr std::uint8_t kCursorVersion = 1;
constexpr std::size_t kCursorSize = 2 + 3 * 8;

void put_u64(std::vector<std::uint8_t>& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

std::uint64_t get_u64(std::span<const std::uint8_t> in, std::size_t at) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(in[at + i]) << (8 * i);
  return v;
}

}  // namespace

EpochOrder::EpochOrder(std::size_t count, std::uint64_t seed, char kind) : count_(count), seed_(seed), kind_(kind) {
  if (count == 0) throw std::invalid_argument("EpochOrder: no sequences to visit");
  shuffle();
}

void EpochOrder::shuffle() {
  permutation_.resize(count_);
  std::iota(permutation_.begin(), permutation_.end(), std::size_t{0});
  // One stream per (seed, epoch): seeking to any epoch needs no replay.
  SplitMix64 rng(seed_ ^ (0xD1B54A32D192ED03ULL * (epoch_ + 1)));
  for (std::size_t i = count_; i > 1; --i) std::swap(permutation_[i - 1], permutation_[rng.below(i)]);
}

void EpochOrder::advance() {
  if (++index_ < count_) return;
  index_ = 0;
  ++epoch_;
  shuffle();
}

std::vector<std::uint8_t> EpochOrder::cursor() const {
  std::vector<std::uint8_t> out{kCursorVersion, static_cast<std::uint8_t>(kind_)};
  put_u64(out, epoch_);
  put_u64(out, index_);
  put_u64(out, count_);
  return out;
}

void EpochOrder::seek(std::span<const std::uint8_t> cursor) {
  const std::string what = "batch cursor: ";
  if (cursor.size() != kCursorSize)
    throw std::runtime_error(what + std::to_string(cursor.size()) + " bytes, expected " + std::to_string(kCursorSize));
  if (cursor[0] != kCursorVersion)
    throw std::runtime_error(what + "version " + std::to_string(cursor[0]) + ", this build reads version " +
                             std::to_string(kCursorVersion));
  if (cursor[1] != static_cast<std::uint8_t>(kind_))
    throw std::runtime_error(what + "written by another kind of batch source ('" +
                             std::string(1, static_cast<char>(cursor[1])) + "', this one is '" + std::string(1, kind_) +
                             "')");
  const std::uint64_t epoch = get_u64(cursor, 2);
  const std::uint64_t index = get_u64(cursor, 10);
  const std::uint64_t count = get_u64(cursor, 18);
  if (count != count_)
    throw std::runtime_error(what + "written for a corpus of " + std::to_string(count) +
                             " train sequences, this one has " + std::to_string(count_));
  if (index >= count_)
    throw std::runtime_error(what + "index " + std::to_string(index) + " is past the " + std::to_string(count_) +
                             " sequences of an epoch");
  const bool reshuffle = epoch != epoch_;
  epoch_ = epoch;
  index_ = static_cast<std::size_t>(index);
  if (reshuffle) shuffle();
}

}  // namespace frugal_demo
