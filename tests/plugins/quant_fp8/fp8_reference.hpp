// The independent reference: NVIDIA's host conversions from cuda_fp8.h,
// cuda_fp16.h and cuda_bf16.h. They are plain C++ on the host (no CUDA
// runtime, no GPU), so any build that finds the toolkit headers compiles
// them; FRUGAL_QUANT_HAVE_FP8_REFERENCE says whether this one did.
#pragma once

#include <cstdint>

#include "formats/fp8.hpp"

#if FRUGAL_QUANT_HAVE_FP8_REFERENCE
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

namespace quant_test {

inline std::uint8_t ref_fp32_to_fp8(float x, frugal::quant::Fp8Format f, frugal::quant::Saturation s) {
  return __nv_cvt_float_to_fp8(x, s == frugal::quant::Saturation::finite ? __NV_SATFINITE : __NV_NOSAT,
                               f == frugal::quant::Fp8Format::e4m3fn ? __NV_E4M3 : __NV_E5M2);
}

inline std::uint8_t ref_fp16_to_fp8(std::uint16_t h, frugal::quant::Fp8Format f, frugal::quant::Saturation s) {
  __half_raw raw;
  raw.x = h;
  return __nv_cvt_halfraw_to_fp8(raw, s == frugal::quant::Saturation::finite ? __NV_SATFINITE : __NV_NOSAT,
                                 f == frugal::quant::Fp8Format::e4m3fn ? __NV_E4M3 : __NV_E5M2);
}

inline std::uint8_t ref_bf16_to_fp8(std::uint16_t b, frugal::quant::Fp8Format f, frugal::quant::Saturation s) {
  __nv_bfloat16_raw raw;
  raw.x = b;
  return __nv_cvt_bfloat16raw_to_fp8(raw, s == frugal::quant::Saturation::finite ? __NV_SATFINITE : __NV_NOSAT,
                                     f == frugal::quant::Fp8Format::e4m3fn ? __NV_E4M3 : __NV_E5M2);
}

// fp8 -> fp16 raw bits (every fp8 value is exact in fp16).
inline std::uint16_t ref_fp8_to_fp16(std::uint8_t c, frugal::quant::Fp8Format f) {
  return __nv_cvt_fp8_to_halfraw(c, f == frugal::quant::Fp8Format::e4m3fn ? __NV_E4M3 : __NV_E5M2).x;
}

inline float ref_fp16_to_fp32(std::uint16_t h) {
  __half_raw raw;
  raw.x = h;
  return __half2float(__half(raw));
}

inline std::uint16_t ref_fp32_to_fp16(float x) { return static_cast<__half_raw>(__float2half_rn(x)).x; }

inline std::uint16_t ref_fp32_to_bf16(float x) { return static_cast<__nv_bfloat16_raw>(__float2bfloat16_rn(x)).x; }

}  // namespace quant_test
#endif
