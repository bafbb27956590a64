#include "algorithms/row_sizes.hpp"

#include <string>

#include "algorithms/types.hpp"

namespace frugal::router {

void check_row_sizes(const char* op, int64_t tokens, int64_t rows, int64_t hidden, std::size_t tokens_buffer,
                     std::size_t rows_buffer) {
  if (hidden <= 0) throw RouterError(std::string(op) + ": hidden " + std::to_string(hidden) + " is not positive");
  if (static_cast<int64_t>(tokens_buffer) != tokens * hidden || static_cast<int64_t>(rows_buffer) != rows * hidden) {
    throw RouterError(std::string(op) + ": buffers of " + std::to_string(tokens_buffer) + " and " +
                      std::to_string(rows_buffer) + " elements, expected " + std::to_string(tokens * hidden) +
                      " (tokens * hidden) and " + std::to_string(rows * hidden) + " (rows * hidden)");
  }
}

int64_t check_row_views(const char* op, sdk::MatrixView<const void> a, sdk::MatrixView<const void> b) {
  const int64_t cols_a = a.cols(), rows_a = a.rows(), stride_a = a.row_stride();
  const int64_t cols_b = b.cols(), rows_b = b.rows(), stride_b = b.row_stride();
  if (cols_a != cols_b) {
    throw RouterError(std::string(op) + ": rows of " + std::to_string(cols_a) + " and " + std::to_string(cols_b) +
                      " elements");
  }
  const int64_t hidden = cols_a;
  if (hidden <= 0) throw RouterError(std::string(op) + ": hidden " + std::to_string(hidden) + " is not positive");
  if (rows_a < 0 || rows_b < 0 || (rows_a > 1 && stride_a < hidden) || (rows_b > 1 && stride_b < hidden)) {
    throw RouterError(std::string(op) + ": row strides " + std::to_string(stride_a) + " and " +
                      std::to_string(stride_b) + " must be at least hidden " + std::to_string(hidden));
  }
  return hidden;
}

}  // namespace frugal::router
