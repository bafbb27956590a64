// Core value types of the sequence packer: limits, algorithm choice, the
// packing result (compressed: one flat item array plus per-pack offsets) and
// the validation error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace frugal::packer {

// Thrown for invalid input or options; what() is a complete sentence-like
// message naming the offending value ("sequence 17 has length 0").
class PackError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

enum class Algorithm {
  naive_first_fit,       // reference: input order, scan every pack, O(n * packs)
  first_fit_decreasing,  // tournament tree over residuals, O(n log n)
  best_fit_decreasing,   // residual buckets + two-level bitset
  spfhp,                 // Krell et al. 2021, shortest-pack-first histogram packing
  lpfhp,                 // Krell et al. 2021, longest-pack-first histogram packing
  refined,               // beats the greedy ones where they leave a gap (see refine.hpp)
  best,                  // runs the others, keeps the fewest packs (see best_of.hpp)
};

enum class OverlongPolicy { error, truncate, split };

struct PackLimits {
  int64_t max_len = 0;       // > 0: tokens per pack
  int64_t max_per_pack = 0;  // >= 0: sequences per pack, 0 = unlimited
  uint64_t seed = 0;         // for algorithms with random choices; same seed, same result
};

// packs() packs; pack p holds items[offsets[p] .. offsets[p+1]) in placement
// order, each an index into the lengths the algorithm was given, and
// tokens[p] real tokens.
struct PackResult {
  std::vector<int64_t> offsets{0};
  std::vector<int64_t> items;
  std::vector<int64_t> tokens;

  [[nodiscard]] std::size_t packs() const noexcept { return tokens.size(); }
  [[nodiscard]] std::span<const int64_t> pack(std::size_t p) const;
  // One vector per pack (convenient for small inputs and tests).
  [[nodiscard]] std::vector<std::vector<int64_t>> nested() const;

  friend bool operator==(const PackResult&, const PackResult&) = default;
};

// "naive_first_fit", "ffd", "bfd", "spfhp", "lpfhp", "refined", "best".
[[nodiscard]] const char* algorithm_name(Algorithm a) noexcept;
// The inverse of algorithm_name; throws PackError naming the valid choices.
[[nodiscard]] Algorithm algorithm_from_name(std::string_view name);
// Every algorithm, in enum order (best last).
[[nodiscard]] std::span<const Algorithm> all_algorithms() noexcept;

}  // namespace frugal::packer
