// The fake-quantization hook of Linear (quantization-aware training): the
// forward pass sees the quantize-dequantize round trip of a tensor, the
// backward pass treats the round trip as identity (straight-through
// estimator). float only: the demo backs it with the quant_fp8 plugin; the
// double build is for gradient checks, where quantization has no place.
#pragma once

#include <cstddef>
#include <span>

namespace frugal_demo {

enum class QuantRole { weight, activation };

struct FakeQuant {
  FakeQuant() = default;
  FakeQuant(const FakeQuant&) = delete;
  FakeQuant& operator=(const FakeQuant&) = delete;
  virtual ~FakeQuant() = default;

  // out = dequantize(quantize(in)); in is a row-major [rows, cols] tensor.
  // Called once per forward for each hooked tensor, so a delayed-scaling
  // quantizer may update its amax history here.
  virtual void apply(std::span<const float> in, std::span<float> out, std::size_t rows, std::size_t cols,
                     QuantRole role) = 0;
};

}  // namespace frugal_demo
