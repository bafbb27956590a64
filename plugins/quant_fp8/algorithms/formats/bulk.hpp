// Bulk conversions over spans, single-threaded. Each equals its scalar
// function (fp8.hpp, int8.hpp) applied per element; the loops are branch-free
// so the compiler vectorizes them.
//
// in and out must have the same size (std::invalid_argument otherwise).
// Functions that read floating-point input also return its amax, made in the
// same pass: max |x| over the non-NaN elements (+Inf if any is infinite, 0
// for an empty or all-NaN input). fp16/bf16 spans hold raw bit patterns.
#pragma once

#include <cstdint>
#include <span>

#include "formats/fp8.hpp"

namespace frugal::quant {

float fp32_to_fp8(std::span<const float> in, std::span<std::uint8_t> out, Fp8Format format, Saturation sat);
float fp16_to_fp8(std::span<const std::uint16_t> in, std::span<std::uint8_t> out, Fp8Format format, Saturation sat);
float bf16_to_fp8(std::span<const std::uint16_t> in, std::span<std::uint8_t> out, Fp8Format format, Saturation sat);

void fp8_to_fp32(std::span<const std::uint8_t> in, std::span<float> out, Fp8Format format);
void fp8_to_fp16(std::span<const std::uint8_t> in, std::span<std::uint16_t> out, Fp8Format format);
void fp8_to_bf16(std::span<const std::uint8_t> in, std::span<std::uint16_t> out, Fp8Format format);

// amax alone (same definition as above).
float amax(std::span<const float> in);

// INT8 (int8.hpp for the exact definitions). The quantizers return amax.
float quantize_int8_symmetric(std::span<const float> in, std::span<std::int8_t> out, float scale);
float quantize_int8_asymmetric(std::span<const float> in, std::span<std::int8_t> out, float scale,
                               std::int8_t zero_point);
void dequantize_int8_symmetric(std::span<const std::int8_t> in, std::span<float> out, float scale);
void dequantize_int8_asymmetric(std::span<const std::int8_t> in, std::span<float> out, float scale,
                                std::int8_t zero_point);

}  // namespace frugal::quant
