#include "parameters.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace frugal_demo {

template <class T>
std::size_t ParameterSet<T>::declare(std::string name, std::size_t size, bool decay) {
  if (allocated_) throw std::logic_error("ParameterSet::declare after allocate");
  entries_.push_back(ParamEntry{std::move(name), total_, size, decay});
  total_ += size;
  return entries_.size() - 1;
}

template <class T>
void ParameterSet<T>::allocate() {
  values_.assign(total_, T(0));
  grads_.assign(total_, T(0));
  allocated_ = true;
}

template <class T>
ParamView<T> ParameterSet<T>::view(std::size_t index) {
  if (!allocated_) throw std::logic_error("ParameterSet::view before allocate");
  const ParamEntry& e = entries_.at(index);
  return {std::span<T>(values_).subspan(e.offset, e.size), std::span<T>(grads_).subspan(e.offset, e.size)};
}

template <class T>
std::vector<std::uint8_t> ParameterSet<T>::decay_mask() const {
  std::vector<std::uint8_t> mask(total_, 0);
  for (const ParamEntry& e : entries_)
    if (e.decay) std::fill_n(mask.begin() + static_cast<std::ptrdiff_t>(e.offset), e.size, std::uint8_t{1});
  return mask;
}

template <class T>
void ParameterSet<T>::zero_grad() {
  std::fill(grads_.begin(), grads_.end(), T(0));
}

double InitRng::uniform() {
  // 53 random bits, shifted off zero so log() below stays finite.
  return (static_cast<double>(next_u64() >> 11) + 0.5) * 0x1.0p-53;
}

double InitRng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  const double r = std::sqrt(-2.0 * std::log(uniform()));
  const double theta = 2.0 * std::numbers::pi * uniform();
  spare_ = r * std::sin(theta);
  has_spare_ = true;
  return r * std::cos(theta);
}

template <class T>
void fill_normal(std::span<T> out, double stddev, InitRng& rng) {
  for (T& x : out) x = static_cast<T>(stddev * rng.normal());
}

template class ParameterSet<float>;
template class ParameterSet<double>;
template void fill_normal<float>(std::span<float>, double, InitRng&);
template void fill_normal<double>(std::span<double>, double, InitRng&);

}  // namespace frugal_demo
