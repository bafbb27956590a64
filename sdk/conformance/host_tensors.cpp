#include "host_tensors.hpp"

#include <stdexcept>
#include <string>

namespace frugal::conformance {

size_t dtype_size(int32_t dtype) {
  switch (dtype) {
    case FRUGAL_DTYPE_FLOAT8_E4M3FN:
    case FRUGAL_DTYPE_FLOAT8_E5M2:
    case FRUGAL_DTYPE_FLOAT8_E8M0FNU:
    case FRUGAL_DTYPE_INT8:
    case FRUGAL_DTYPE_UINT8:
    case FRUGAL_DTYPE_BOOL: return 1;
    case FRUGAL_DTYPE_FLOAT16:
    case FRUGAL_DTYPE_BFLOAT16:
    case FRUGAL_DTYPE_INT16: return 2;
    case FRUGAL_DTYPE_FLOAT32:
    case FRUGAL_DTYPE_INT32: return 4;
    case FRUGAL_DTYPE_FLOAT64:
    case FRUGAL_DTYPE_INT64: return 8;
    default:
      throw std::runtime_error("a layout names dtype " + std::to_string(dtype) + ", which frugal does not define");
  }
}

HostTensor::HostTensor(int32_t dtype, int64_t rows, int64_t cols) {
  const bool matrix = cols >= 0;
  shape_[0] = rows;
  shape_[1] = matrix ? cols : 1;
  strides_[0] = matrix ? cols : 1;
  bytes_.assign(static_cast<size_t>(rows * shape_[1]) * dtype_size(dtype), 0);
  view_.struct_size = sizeof view_;
  view_.data = bytes_.data();
  view_.dtype = dtype;
  view_.ndim = matrix ? 2 : 1;
  view_.device = {FRUGAL_DEVICE_CPU, 0};
  view_.shape = shape_;
  view_.strides = strides_;
}

float Random::uniform() {
  state_ ^= state_ >> 12;
  state_ ^= state_ << 25;
  state_ ^= state_ >> 27;
  const uint64_t bits = (state_ * 0x2545F4914F6CDD1Dull) >> 40;  // 24 random bits
  return static_cast<float>(bits) / static_cast<float>(1u << 23) - 1.0f;
}

void Random::fill(HostTensor& t, float magnitude) {
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.elements(); ++i) p[i] = uniform() * magnitude;
}

}  // namespace frugal::conformance
