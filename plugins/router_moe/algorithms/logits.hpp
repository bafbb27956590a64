// Router logits as raw rows: fp32, or bf16 / fp16 as uint16 bit patterns.
// Every router widens one row at a time to fp32 (exactly: both half formats
// are subsets of fp32) and does all its math in fp32 from there.
#pragma once

#include <cstdint>
#include <span>

namespace frugal::router {

enum class LogitType { f32, bf16, f16 };

// Row-major [tokens, experts]; row t starts at element t * row_stride
// (row_stride >= experts; 0 means experts). data points at float for f32
// and at uint16_t for bf16 / f16.
struct LogitRows {
  const void* data = nullptr;
  LogitType type = LogitType::f32;
  int64_t tokens = 0;
  int64_t experts = 0;
  int64_t row_stride = 0;

  [[nodiscard]] int64_t stride() const noexcept { return row_stride == 0 ? experts : row_stride; }
};

[[nodiscard]] LogitRows fp32_logits(std::span<const float> data, int64_t tokens, int64_t experts);
[[nodiscard]] LogitRows bf16_logits(std::span<const uint16_t> data, int64_t tokens, int64_t experts);
[[nodiscard]] LogitRows fp16_logits(std::span<const uint16_t> data, int64_t tokens, int64_t experts);

// Throws RouterError for a null pointer, non-positive sizes or a stride
// below experts.
void validate(const LogitRows& logits);

// Widens row t into out[0, experts). Throws RouterError if a value is NaN
// or infinite: no router defines a sensible choice for it.
void widen_row(const LogitRows& logits, int64_t t, std::span<float> out);

}  // namespace frugal::router
