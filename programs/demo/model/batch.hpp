// One training batch: `rows` rows of `seq` tokens, row-major [rows, seq].
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace frugal_demo {

struct Batch {
  std::size_t rows = 0;
  std::size_t seq = 0;
  std::vector<std::int32_t> tokens;     // any valid id on padding
  std::vector<std::int32_t> labels;     // next token, or -100 (kIgnoreLabel) = no loss
  std::vector<std::int32_t> positions;  // 0 at each packed sequence's start
  std::vector<std::int32_t> segments;   // packed sequence index in the row; -1 = padding
};

}  // namespace frugal_demo
