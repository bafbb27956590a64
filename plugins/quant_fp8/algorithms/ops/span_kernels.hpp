// The inner loops of the CPU operations: one contiguous run of a row, with
// one block's scale (BlockScale) or one scale per element (ColumnScales:
// per-column scaling, where every column is its own block). Each is a straight loop
// over scalar, branch-free conversions, so the compiler vectorizes it.
// Internal to ops/.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ops/codecs.hpp"

namespace frugal::quant::ops::detail {

// One scale per element of a run (per-column scaling). Every array holds
// at least the run's length.
struct ColumnScales {
  const float* scale;
  const float* scale_inv;
  const std::int8_t* zero_point;

  [[nodiscard]] BlockScale at(std::size_t i) const noexcept { return {scale[i], scale_inv[i], zero_point[i]}; }
};

template <class T, class Codec>
void encode_run(const typename T::Storage* __restrict in, typename Codec::Code* __restrict out, std::size_t n,
                BlockScale b) noexcept {
  for (std::size_t i = 0; i < n; ++i) out[i] = Codec::encode(T::widen(in[i]), b);
}

template <class T, class Codec>
void encode_run(const typename T::Storage* __restrict in, typename Codec::Code* __restrict out, std::size_t n,
                ColumnScales s) noexcept {
  for (std::size_t i = 0; i < n; ++i) out[i] = Codec::encode(T::widen(in[i]), s.at(i));
}

template <class T, class Codec>
void decode_run(const typename Codec::Code* __restrict in, typename T::Storage* __restrict out, std::size_t n,
                BlockScale b) noexcept {
  for (std::size_t i = 0; i < n; ++i) out[i] = T::narrow(Codec::decode(in[i], b));
}

template <class T, class Codec>
void decode_run(const typename Codec::Code* __restrict in, typename T::Storage* __restrict out, std::size_t n,
                ColumnScales s) noexcept {
  for (std::size_t i = 0; i < n; ++i) out[i] = T::narrow(Codec::decode(in[i], s.at(i)));
}

// The largest magnitude key of a run (element_types.hpp), at least `acc`.
template <class T>
std::int32_t max_key(const typename T::Storage* __restrict in, std::size_t n, std::int32_t acc) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t k = T::key(in[i]);
    acc = acc > k ? acc : k;
  }
  return acc;
}

// acc[i] = max(acc[i], key(in[i])): per-column amaxes of one row.
template <class T>
void max_key_columns(const typename T::Storage* __restrict in, std::int32_t* __restrict acc, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t k = T::key(in[i]);
    acc[i] = acc[i] > k ? acc[i] : k;
  }
}

// The range of a block for asymmetric INT8: min and max with NaN ignored,
// starting from 0 so real 0 always lies inside; `nan` records whether a NaN
// was seen (the block's amax is then NaN).
struct Range {
  float lo = 0.0f;
  float hi = 0.0f;
  bool nan = false;
};

template <class T>
Range widen_range(const typename T::Storage* __restrict in, std::size_t n, Range r) noexcept {
  float lo = r.lo, hi = r.hi;
  int nan = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float x = T::widen(in[i]);
    // A comparison with NaN is false, so NaN never moves lo or hi.
    lo = x < lo ? x : lo;
    hi = x > hi ? x : hi;
    nan |= static_cast<int>(x != x);
  }
  return {lo, hi, r.nan || nan != 0};
}

}  // namespace frugal::quant::ops::detail
