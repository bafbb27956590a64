// The CPU implementation of quant_op.hpp's operations: the reference for the
// CUDA kernels. Multi-threaded over rows / blocks for big tensors.
//
// Exact definitions beyond quant_op.hpp, which the CUDA kernels follow too:
//
// Amax. A NaN amax (a block or the whole tensor holding a NaN) is written
// as the canonical quiet NaN 0x7FC00000, whichever NaN the input held.
//
// Asymmetric INT8 (int8_asym), per block:
//   lo = min(0, min x), hi = max(0, max x), NaN elements ignored: the range
//        always holds real 0, so 0 quantizes to the zero point and
//        dequantizes to exactly 0;
//   (scale, scale_inv, zero_point) = int8_asymmetric_scale(lo, hi) below;
//   q  = quantize_int8_asymmetric(x, scale_inv, zero_point)
//        (formats/int8.hpp: clamp(rne(x / scale_inv) + zero_point, -128, 127));
//   x' = (q - zero_point) * scale_inv.
// The block's amax (NaN propagating) is still what the amax output reports.
//
// GEMM. Every element of D is one fp32 sum over k in ascending order,
// acc = ((0 + p_0) + p_1) + ... + p_{k-1}, of the exact products
// p = decode(a) * decode(b) (two fp8 values multiply exactly in fp32), so
// the result is independent of blocking, threads and FMA contraction. Then
//   d = acc * factor,  factor = (scale_inv_a * scale_inv_b) * alpha  (fp32),
// and the output is d (fp32), fp32_to_bf16(d) or fp32_to_fp16(d), or for
// FP8: fp32_to_fp8(d * d_scale, saturating). d_amax, when not null, receives
// max |d| over all of D (NaN propagating), for any output dtype.
//
// Threads. op.threads caps the threads (0: the hardware's concurrency); a
// thread is started only for a large enough share of work. Every result is
// byte-identical for any thread count.
#pragma once

#include <cstdint>

#include "ops/quant_op.hpp"

namespace frugal::quant::ops {

// Returns the whole input's amax (as also written to op.scales.amax).
float quantize_cpu(const QuantizeOp& op);
// The whole input's amax, exactly as quantize_cpu returns it (NaN as the
// canonical quiet NaN), writing nothing: current scaling across ranks
// measures first, agrees on the amax, then casts with the agreed scale.
[[nodiscard]] float amax_cpu(const Matrix& input, unsigned threads);
void dequantize_cpu(const DequantizeOp& op);
void gemm_cpu(const GemmOp& op);

// The scales of one asymmetric INT8 block with range [lo, hi] (lo <= 0 <=
// hi, no NaN):
//   - lo or hi infinite, or lo == hi (== 0): scale_inv 1, scale 1, zero
//     point 0, the fallbacks of recipes::current_scale;
//   - otherwise, in double with correctly rounded operations:
//       step       = (hi - lo) / 255;
//       scale_inv  = the smallest fp32 >= step (so 255 steps cover the
//                    range), clamped to [2^-126, 2^126] like every fp32 scale;
//       zero_point = rne(-128 - lo / scale_inv), which lies in [-128, 127];
//       scale      = 1.0f / scale_inv (fp32; informational: quantizing
//                    divides by scale_inv).
// Then lo and hi map within half a step of -128 and 127, so the round trip
// error of any x in [lo, hi] is at most scale_inv / 2 plus fp32 rounding.
struct Int8AsymmetricScale {
  float scale = 1.0f;
  float scale_inv = 1.0f;
  std::int8_t zero_point = 0;
};
[[nodiscard]] Int8AsymmetricScale int8_asymmetric_scale(float lo, float hi) noexcept;

}  // namespace frugal::quant::ops
