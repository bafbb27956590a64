#include "algorithms/validate.hpp"

#include <string>

namespace frugal::packer {

void validate_limits(const PackLimits& limits) {
  if (limits.max_len <= 0) {
    throw PackError("max_len must be positive, got " + std::to_string(limits.max_len));
  }
  if (limits.max_per_pack < 0) {
    throw PackError("max_per_pack must be >= 0 (0 = unlimited), got " + std::to_string(limits.max_per_pack));
  }
}

void validate_positive_lengths(std::span<const int64_t> lengths) {
  if (lengths.empty()) throw PackError("empty input: no sequences to pack");
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] <= 0) {
      throw PackError("sequence " + std::to_string(i) + " has length " + std::to_string(lengths[i]));
    }
  }
}

void validate_packable(std::span<const int64_t> lengths, const PackLimits& limits) {
  validate_limits(limits);
  validate_positive_lengths(lengths);
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] > limits.max_len) {
      throw PackError("sequence " + std::to_string(i) + " has length " + std::to_string(lengths[i]) + " > max_len " +
                      std::to_string(limits.max_len));
    }
  }
}

}  // namespace frugal::packer
