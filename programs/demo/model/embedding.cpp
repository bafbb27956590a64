#include "embedding.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace frugal_demo {

template <class T>
Embedding<T>::Embedding(std::size_t rows, std::size_t dim, ParamView<T> table) : rows_(rows), dim_(dim), table_(table) {
  if (table.value.size() != rows * dim) throw std::invalid_argument("Embedding: table size mismatch");
}

template <class T>
std::vector<T> Embedding<T>::forward(std::span<const std::int32_t> ids) {
  ids_.assign(ids.begin(), ids.end());
  std::vector<T> out(ids.size() * dim_);
  for (std::size_t n = 0; n < ids.size(); ++n) {
    const std::int32_t id = ids[n];
    if (id < 0 || static_cast<std::size_t>(id) >= rows_)
      throw std::out_of_range("Embedding: id " + std::to_string(id) + " outside the table");
    std::copy_n(table_.value.begin() + static_cast<std::ptrdiff_t>(id * dim_), dim_,
                out.begin() + static_cast<std::ptrdiff_t>(n * dim_));
  }
  return out;
}

template <class T>
void Embedding<T>::backward(std::span<const T> d_out) {
  if (d_out.size() != ids_.size() * dim_) throw std::invalid_argument("Embedding::backward: size mismatch");
  for (std::size_t n = 0; n < ids_.size(); ++n) {
    T* g = table_.grad.data() + static_cast<std::size_t>(ids_[n]) * dim_;
    const T* d = d_out.data() + n * dim_;
    for (std::size_t j = 0; j < dim_; ++j) g[j] += d[j];
  }
}

template class Embedding<float>;
template class Embedding<double>;

}  // namespace frugal_demo
