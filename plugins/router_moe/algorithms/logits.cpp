#include "algorithms/logits.hpp"

#include <cmath>
#include <string>

#include "algorithms/types.hpp"
#include "formats/half.hpp"

namespace frugal::router {
namespace {

template <class T>
Logits make_rows(std::span<const T> data, int64_t tokens, int64_t experts, LogitType type) {
  if (tokens < 0 || experts < 0 || static_cast<uint64_t>(tokens) * static_cast<uint64_t>(experts) != data.size()) {
    throw RouterError("logits: " + std::to_string(data.size()) + " values do not make " + std::to_string(tokens) +
                      " rows of " + std::to_string(experts));
  }
  return Logits{{data.data(), tokens, experts, experts}, type};
}

template <class T, class Widen>
void widen(std::span<const T> row, std::span<float> out, Widen w) {
  for (std::size_t e = 0; e < row.size(); ++e) out[e] = w(row[e]);
}

}  // namespace

Logits fp32_logits(std::span<const float> data, int64_t tokens, int64_t experts) {
  return make_rows(data, tokens, experts, LogitType::f32);
}
Logits bf16_logits(std::span<const uint16_t> data, int64_t tokens, int64_t experts) {
  return make_rows(data, tokens, experts, LogitType::bf16);
}
Logits fp16_logits(std::span<const uint16_t> data, int64_t tokens, int64_t experts) {
  return make_rows(data, tokens, experts, LogitType::f16);
}

void validate(const Logits& logits) {
  if (logits.data() == nullptr) throw RouterError("logits: null data");
  if (logits.rows() <= 0) throw RouterError("logits: tokens " + std::to_string(logits.rows()) + " is not positive");
  if (logits.cols() <= 0) throw RouterError("logits: experts " + std::to_string(logits.cols()) + " is not positive");
  if (logits.row_stride() < logits.cols()) {
    throw RouterError("logits: row stride " + std::to_string(logits.row_stride()) + " is below experts " +
                      std::to_string(logits.cols()));
  }
}

void widen_row(const Logits& logits, int64_t t, std::span<float> out) {
  switch (logits.type) {  // row(t): int64 offsets, as tokens * stride may pass 2^31
    case LogitType::f32: widen(logits.as<const float>().row(t), out, [](float v) { return v; }); break;
    case LogitType::bf16: widen(logits.as<const uint16_t>().row(t), out, quant::bf16_to_fp32); break;
    case LogitType::f16: widen(logits.as<const uint16_t>().row(t), out, quant::fp16_to_fp32); break;
  }
  for (int64_t e = 0; e < logits.cols(); ++e) {
    if (!std::isfinite(out[static_cast<std::size_t>(e)])) {
      throw RouterError("logits: token " + std::to_string(t) + " expert " + std::to_string(e) + " is not finite");
    }
  }
}

}  // namespace frugal::router
