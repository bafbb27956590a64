// The order in which a batch source visits the train sequences: a seeded
// shuffle per epoch, and a position (epoch, index) that serializes into a
// checkpoint cursor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace frugal_demo {

class EpochOrder {
 public:
  // count > 0 sequences; `kind` tags cursors so one source refuses
  // another's ('D' padded, 'P' packed).
  EpochOrder(std::size_t count, std::uint64_t seed, char kind);

  [[nodiscard]] std::size_t current() const { return permutation_[index_]; }  // train index at the position
  void advance();                                                             // next sequence, reshuffling past the end
  [[nodiscard]] std::uint64_t epoch() const { return epoch_; }
  [[nodiscard]] std::size_t index() const { return index_; }
  [[nodiscard]] std::size_t count() const { return count_; }

  [[nodiscard]] std::vector<std::uint8_t> cursor() const;
  // Throws std::runtime_error naming what is wrong (size, version, kind,
  // corpus size, index range).
  void seek(std::span<const std::uint8_t> cursor);

 private:
  void shuffle();

  std::size_t count_;
  std::uint64_t seed_;
  char kind_;
  std::uint64_t epoch_ = 0;
  std::size_t index_ = 0;
  std::vector<std::size_t> permutation_;
};

}  // namespace frugal_demo
