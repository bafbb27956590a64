// host_tensors.hpp — CPU tensors owned by the conformance kit, handed to a
// plugin's slots directly. They come already in the form the core would
// pass (2-D or 1-D, compact, strides never NULL), so a plugin that fails on
// them fails on what the core really sends.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "frugal/tensor.h"

namespace frugal::conformance {

// Bytes per element of the dtypes the kit allocates.
size_t dtype_size(int32_t dtype);

class HostTensor {
 public:
  HostTensor() = default;
  // A zeroed [rows, cols] tensor (1-D [rows] when cols < 0).
  HostTensor(int32_t dtype, int64_t rows, int64_t cols = -1);
  // The view points into this object: neither copyable nor movable.
  HostTensor(const HostTensor&) = delete;
  HostTensor& operator=(const HostTensor&) = delete;

  [[nodiscard]] const frugal_tensor* view() const { return &view_; }
  frugal_tensor* view() { return &view_; }
  template <typename T>
  T* data() {
    return reinterpret_cast<T*>(bytes_.data());
  }
  template <typename T>
  [[nodiscard]] [[nodiscard]] [[nodiscard]] [[nodiscard]] const T* data() const {
    return reinterpret_cast<const T*>(bytes_.data());
  }
  [[nodiscard]] int64_t elements() const { return shape_[0] * (view_.ndim == 2 ? shape_[1] : 1); }
  [[nodiscard]] const std::vector<unsigned char>& bytes() const { return bytes_; }
  // Appends this tensor's bytes to `out` (a result to compare bytewise).
  void append_to(std::vector<unsigned char>& out) const { out.insert(out.end(), bytes_.begin(), bytes_.end()); }

 private:
  std::vector<unsigned char> bytes_;
  int64_t shape_[2] = {0, 0};
  int64_t strides_[2] = {0, 1};
  frugal_tensor view_{};
};

// Reproducible uniform floats in [-1, 1) (xorshift64*): the same seed gives
// the same tensor in every run and on every platform.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 1) {}
  float uniform();
  void fill(HostTensor& t, float magnitude = 1.0f);

 private:
  uint64_t state_;
};

}  // namespace frugal::conformance
