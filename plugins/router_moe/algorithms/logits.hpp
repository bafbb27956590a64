// Router logits as raw rows: fp32, or bf16 / fp16 as uint16 bit patterns.
// Every router widens one row at a time to fp32 (exactly: both half formats
// are subsets of fp32) and does all its math in fp32 from there.
#pragma once

#include <cstdint>
#include <span>

#include "frugal/sdk/tensor_view.hpp"

namespace frugal::router {

enum class LogitType { f32, bf16, f16 };

// The [tokens, experts] logits (rows() tokens, cols() experts) as the SDK's
// type-erased view, row t at element t * row_stride(), and their element
// type beside it: float for f32, uint16_t for bf16 / f16 (read them with
// as<const float>() / as<const uint16_t>()). On the CUDA path the data are
// device memory.
struct Logits : sdk::MatrixView<const void> {
  LogitType type = LogitType::f32;
};

// Compact logits over a caller's buffer; throws RouterError when data is
// not tokens * experts values.
[[nodiscard]] Logits fp32_logits(std::span<const float> data, int64_t tokens, int64_t experts);
[[nodiscard]] Logits bf16_logits(std::span<const uint16_t> data, int64_t tokens, int64_t experts);
[[nodiscard]] Logits fp16_logits(std::span<const uint16_t> data, int64_t tokens, int64_t experts);

// Throws RouterError for a null pointer, non-positive sizes or a row stride
// below experts.
void validate(const Logits& logits);

// Widens row t into out[0, experts). Throws RouterError if a value is NaN
// or infinite: no router defines a sensible choice for it.
void widen_row(const Logits& logits, int64_t t, std::span<float> out);

}  // namespace frugal::router
