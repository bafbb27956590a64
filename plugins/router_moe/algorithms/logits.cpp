#include "algorithms/logits.hpp"

#include <cmath>
#include <string>

#include "algorithms/types.hpp"
#include "formats/half.hpp"

namespace frugal::router {
namespace {

template <class T>
LogitRows make_rows(std::span<const T> data, int64_t tokens, int64_t experts, LogitType type) {
  if (tokens < 0 || experts < 0 || static_cast<uint64_t>(tokens) * static_cast<uint64_t>(experts) != data.size()) {
    throw RouterError("logits: " + std::to_string(data.size()) + " values do not make " + std::to_string(tokens) +
                      " rows of " + std::to_string(experts));
  }
  return LogitRows{data.data(), type, tokens, experts, experts};
}

template <class T, class Widen>
void widen(const T* row, int64_t n, std::span<float> out, Widen w) {
  for (int64_t e = 0; e < n; ++e) out[static_cast<std::size_t>(e)] = w(row[e]);
}

}  // namespace

LogitRows fp32_logits(std::span<const float> data, int64_t tokens, int64_t experts) {
  return make_rows(data, tokens, experts, LogitType::f32);
}
LogitRows bf16_logits(std::span<const uint16_t> data, int64_t tokens, int64_t experts) {
  return make_rows(data, tokens, experts, LogitType::bf16);
}
LogitRows fp16_logits(std::span<const uint16_t> data, int64_t tokens, int64_t experts) {
  return make_rows(data, tokens, experts, LogitType::f16);
}

void validate(const LogitRows& logits) {
  if (logits.data == nullptr) throw RouterError("logits: null data");
  if (logits.tokens <= 0) throw RouterError("logits: tokens " + std::to_string(logits.tokens) + " is not positive");
  if (logits.experts <= 0) throw RouterError("logits: experts " + std::to_string(logits.experts) + " is not positive");
  if (logits.stride() < logits.experts) {
    throw RouterError("logits: row stride " + std::to_string(logits.row_stride) + " is below experts " +
                      std::to_string(logits.experts));
  }
}

void widen_row(const LogitRows& logits, int64_t t, std::span<float> out) {
  const int64_t offset = t * logits.stride();  // int64: tokens * stride may pass 2^31
  switch (logits.type) {
    case LogitType::f32:
      widen(static_cast<const float*>(logits.data) + offset, logits.experts, out, [](float v) { return v; });
      break;
    case LogitType::bf16:
      widen(static_cast<const uint16_t*>(logits.data) + offset, logits.experts, out, quant::bf16_to_fp32);
      break;
    case LogitType::f16:
      widen(static_cast<const uint16_t*>(logits.data) + offset, logits.experts, out, quant::fp16_to_fp32);
      break;
  }
  for (int64_t e = 0; e < logits.experts; ++e) {
    if (!std::isfinite(out[static_cast<std::size_t>(e)])) {
      throw RouterError("logits: token " + std::to_string(t) + " expert " + std::to_string(e) + " is not finite");
    }
  }
}

}  // namespace frugal::router
