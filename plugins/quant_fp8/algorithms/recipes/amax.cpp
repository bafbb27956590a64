#include "recipes/amax.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace frugal::quant::recipes {
namespace {

// Running amax with the NaN flag kept apart: a plain `m = max(m, |x|)`
// either drops NaN or lets a later comparison overwrite it.
struct Acc {
  float max = 0.0f;
  bool nan = false;

  void add(std::span<const float> x) noexcept {
    for (const float v : x) {
      const float a = std::fabs(v);
      nan |= std::isnan(a);
      max = a > max ? a : max;
    }
  }
  [[nodiscard]] float value() const noexcept { return nan ? std::numeric_limits<float>::quiet_NaN() : max; }
};

}  // namespace

float amax(std::span<const float> x) noexcept {
  Acc acc;
  acc.add(x);
  return acc.value();
}

std::vector<float> amax_per_channel(const sdk::MatrixView<const float>& x, Axis axis) {
  const auto rows = static_cast<std::size_t>(x.rows());
  const auto cols = static_cast<std::size_t>(x.cols());
  if (axis == Axis::rows) {
    std::vector<float> out(rows);
    for (std::size_t r = 0; r < rows; ++r) out[r] = amax(x.row(static_cast<std::int64_t>(r)));
    return out;
  }
  // Columns: walk rows in memory order, one accumulator per column.
  std::vector<Acc> acc(cols);
  for (std::size_t r = 0; r < rows; ++r) {
    const std::span<const float> row = x.row(static_cast<std::int64_t>(r));
    for (std::size_t c = 0; c < cols; ++c) acc[c].add(row.subspan(c, 1));
  }
  std::vector<float> out(cols);
  std::transform(acc.begin(), acc.end(), out.begin(), [](const Acc& a) { return a.value(); });
  return out;
}

std::vector<float> amax_per_block(const sdk::MatrixView<const float>& x, BlockShape b) {
  if (b.rows == 0 || b.cols == 0) throw std::invalid_argument("amax_per_block: block dimensions must be >= 1");
  const auto rows = static_cast<std::size_t>(x.rows());
  const auto cols = static_cast<std::size_t>(x.cols());
  const std::size_t grid_rows = block_count(rows, b.rows);
  const std::size_t grid_cols = block_count(cols, b.cols);
  std::vector<Acc> acc(grid_rows * grid_cols);
  for (std::size_t r = 0; r < rows; ++r) {
    const std::span<const float> row = x.row(static_cast<std::int64_t>(r));
    Acc* row_acc = acc.data() + (r / b.rows) * grid_cols;
    for (std::size_t gc = 0; gc < grid_cols; ++gc) {
      const std::size_t c0 = gc * b.cols;
      row_acc[gc].add(row.subspan(c0, std::min(b.cols, cols - c0)));
    }
  }
  std::vector<float> out(acc.size());
  std::transform(acc.begin(), acc.end(), out.begin(), [](const Acc& a) { return a.value(); });
  return out;
}

}  // namespace frugal::quant::recipes
