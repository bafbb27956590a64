// Size checks and work blocking shared by permute and combine.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "frugal/sdk/tensor_view.hpp"

namespace frugal::router {

// Throws RouterError unless tokens_buffer == tokens * hidden and
// rows_buffer == rows * hidden (and hidden > 0).
void check_row_sizes(const char* op, int64_t tokens, int64_t rows, int64_t hidden, std::size_t tokens_buffer,
                     std::size_t rows_buffer);

// Throws RouterError unless both views have the same number of columns,
// hidden > 0, and both strides are >= hidden; returns hidden. Any typed
// view converts to the erased ones taken here.
int64_t check_row_views(const char* op, sdk::MatrixView<const void> a, sdk::MatrixView<const void> b);

// Rows per unit of parallel work: about 256 KiB of fp32 per block, so a
// block outweighs the scheduling and blocks stay many for load balance.
[[nodiscard]] constexpr int64_t rows_per_block(int64_t hidden) noexcept {
  return std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(1, hidden));
}

}  // namespace frugal::router
