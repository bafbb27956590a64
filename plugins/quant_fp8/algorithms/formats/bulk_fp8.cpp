// Bulk fp32/fp16/bf16 <-> fp8. The format and saturation are template
// parameters so each inner loop is one straight-line body the compiler
// vectorizes; the run-time switch happens once per call.
#include <cstddef>
#include <cstdint>
#include <span>

#include "formats/bulk.hpp"
#include "formats/bulk_support.hpp"
#include "formats/half.hpp"

namespace frugal::quant {
namespace {

template <Fp8Format F, Saturation S>
float fp32_loop(const float* __restrict in, std::uint8_t* __restrict out, std::size_t n) {
  std::int32_t acc = 0;
  for (std::size_t i = 0; i < n; ++i) {
    acc = detail::amax_lane(acc, float_bits(in[i]), kFp32InfBits, kFp32AbsMask);
    out[i] = fp32_to_fp8<F, S>(in[i]);
  }
  return bits_float(static_cast<std::uint32_t>(acc));
}

// fp16 and bf16: the amax runs on the 16-bit magnitudes, widened once at the end.
template <Fp8Format F, Saturation S>
float fp16_loop(const std::uint16_t* __restrict in, std::uint8_t* __restrict out, std::size_t n) {
  std::int32_t acc = 0;
  for (std::size_t i = 0; i < n; ++i) {
    acc = detail::amax_lane(acc, in[i], 0x7C00u, 0x7FFFu);
    out[i] = fp16_to_fp8<F, S>(in[i]);
  }
  return fp16_to_fp32(static_cast<std::uint16_t>(acc));
}

template <Fp8Format F, Saturation S>
float bf16_loop(const std::uint16_t* __restrict in, std::uint8_t* __restrict out, std::size_t n) {
  std::int32_t acc = 0;
  for (std::size_t i = 0; i < n; ++i) {
    acc = detail::amax_lane(acc, in[i], 0x7F80u, 0x7FFFu);
    out[i] = bf16_to_fp8<F, S>(in[i]);
  }
  return bf16_to_fp32(static_cast<std::uint16_t>(acc));
}

// Picks the instantiation for the run-time format and mode.
template <template <Fp8Format, Saturation> class Loop, class In>
float dispatch(const In* in, std::uint8_t* out, std::size_t n, Fp8Format format, Saturation sat) {
  if (format == Fp8Format::e4m3fn) {
    return sat == Saturation::finite ? Loop<Fp8Format::e4m3fn, Saturation::finite>::run(in, out, n)
                                     : Loop<Fp8Format::e4m3fn, Saturation::none>::run(in, out, n);
  }
  return sat == Saturation::finite ? Loop<Fp8Format::e5m2, Saturation::finite>::run(in, out, n)
                                   : Loop<Fp8Format::e5m2, Saturation::none>::run(in, out, n);
}

template <Fp8Format F, Saturation S>
struct Fp32Loop {
  static float run(const float* in, std::uint8_t* out, std::size_t n) { return fp32_loop<F, S>(in, out, n); }
};
template <Fp8Format F, Saturation S>
struct Fp16Loop {
  static float run(const std::uint16_t* in, std::uint8_t* out, std::size_t n) { return fp16_loop<F, S>(in, out, n); }
};
template <Fp8Format F, Saturation S>
struct Bf16Loop {
  static float run(const std::uint16_t* in, std::uint8_t* out, std::size_t n) { return bf16_loop<F, S>(in, out, n); }
};

template <Fp8Format F>
void decode_fp32_loop(const std::uint8_t* __restrict in, float* __restrict out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = fp8_to_fp32<F>(in[i]);
}
template <Fp8Format F>
void decode_fp16_loop(const std::uint8_t* __restrict in, std::uint16_t* __restrict out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = fp8_to_fp16<F>(in[i]);
}
template <Fp8Format F>
void decode_bf16_loop(const std::uint8_t* __restrict in, std::uint16_t* __restrict out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = fp8_to_bf16<F>(in[i]);
}

}  // namespace

float fp32_to_fp8(std::span<const float> in, std::span<std::uint8_t> out, Fp8Format format, Saturation sat) {
  detail::require_same_size(in.size(), out.size());
  return dispatch<Fp32Loop>(in.data(), out.data(), in.size(), format, sat);
}

float fp16_to_fp8(std::span<const std::uint16_t> in, std::span<std::uint8_t> out, Fp8Format format, Saturation sat) {
  detail::require_same_size(in.size(), out.size());
  return dispatch<Fp16Loop>(in.data(), out.data(), in.size(), format, sat);
}

float bf16_to_fp8(std::span<const std::uint16_t> in, std::span<std::uint8_t> out, Fp8Format format, Saturation sat) {
  detail::require_same_size(in.size(), out.size());
  return dispatch<Bf16Loop>(in.data(), out.data(), in.size(), format, sat);
}

void fp8_to_fp32(std::span<const std::uint8_t> in, std::span<float> out, Fp8Format format) {
  detail::require_same_size(in.size(), out.size());
  if (format == Fp8Format::e4m3fn) {
    decode_fp32_loop<Fp8Format::e4m3fn>(in.data(), out.data(), in.size());
  } else {
    decode_fp32_loop<Fp8Format::e5m2>(in.data(), out.data(), in.size());
  }
}

void fp8_to_fp16(std::span<const std::uint8_t> in, std::span<std::uint16_t> out, Fp8Format format) {
  detail::require_same_size(in.size(), out.size());
  if (format == Fp8Format::e4m3fn) {
    decode_fp16_loop<Fp8Format::e4m3fn>(in.data(), out.data(), in.size());
  } else {
    decode_fp16_loop<Fp8Format::e5m2>(in.data(), out.data(), in.size());
  }
}

void fp8_to_bf16(std::span<const std::uint8_t> in, std::span<std::uint16_t> out, Fp8Format format) {
  detail::require_same_size(in.size(), out.size());
  if (format == Fp8Format::e4m3fn) {
    decode_bf16_loop<Fp8Format::e4m3fn>(in.data(), out.data(), in.size());
  } else {
    decode_bf16_loop<Fp8Format::e5m2>(in.data(), out.data(), in.size());
  }
}

float amax(std::span<const float> in) {
  std::int32_t acc = 0;
  for (const float x : in) acc = detail::amax_lane(acc, float_bits(x), kFp32InfBits, kFp32AbsMask);
  return bits_float(static_cast<std::uint32_t>(acc));
}

}  // namespace frugal::quant
