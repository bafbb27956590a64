// Lookup table: row id of a [rows, dim] table per input id. Serves both the
// token embedding (ids = tokens) and the learned position embedding
// (ids = position_ids, which restart at 0 in every packed sequence).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "parameters.hpp"

namespace frugal_demo {

template <class T>
class Embedding {
 public:
  Embedding(std::size_t rows, std::size_t dim, ParamView<T> table);

  // out[n, dim]; throws std::out_of_range on an id outside [0, rows).
  std::vector<T> forward(std::span<const std::int32_t> ids);
  // Scatter-adds d_out rows into the table gradient (in token order, so the
  // sum order is fixed). An embedding has no input gradient.
  void backward(std::span<const T> d_out);

  [[nodiscard]] std::size_t dim() const { return dim_; }

 private:
  std::size_t rows_;
  std::size_t dim_;
  ParamView<T> table_;
  std::vector<std::int32_t> ids_;
};

}  // namespace frugal_demo
