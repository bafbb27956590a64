// Scalar pieces of the router kernels that must match the CPU path bit for
// bit, written so the host compiler builds them too: a CPU test
// (tests/device/router_cuda_port_test.cpp) checks them against the CPU
// reference on this machine's own arithmetic.
//
//   order keys  unsigned integers that sort like the fp32 values they
//               encode, -0 and +0 as one key: the CPU's comparisons (a > b,
//               a != b) treat the two zeros as equal and break the tie by
//               index, and so must every sort and selection here;
//   combine     one step acc + w * y with the host's NaN bits. GPUs return
//               one canonical NaN for any NaN result; x86 returns the first
//               NaN operand quieted, or its default NaN for an invalid
//               operation (Inf - Inf, 0 * Inf). Which operand comes first
//               is the compiler's choice: the CPU combine's loop as GCC
//               builds it for x86-64 adds (y * w) + acc, the product first
//               and y first in it. That matters only when both operands
//               are NaN (a NaN row after a NaN row; a routed weight is
//               never NaN); the port test checks it against this build's
//               CPU combine.
#pragma once

#include <cstdint>

#include "algorithms/router_math.hpp"
#include "quant_fp8/cuda/device_math.hpp"

namespace frugal::router::cuda::scalar {

// Ascending key of an fp32 value: larger values, larger keys; NaNs above
// +Inf (positive) or below -Inf (negative), never equal to a number.
FRUGAL_ROUTER_HD std::uint32_t order_key(float x) {
  std::uint32_t u = math::bits_of(x);
  if (u == 0x8000'0000u) u = 0;  // -0 sorts as +0
  return (u & 0x8000'0000u) != 0 ? ~u : (u | 0x8000'0000u);
}

// The by-probability drop order's key: expert ascending, then weight
// descending; a stable sort then orders equal weights by slot, as
// build_dispatch_plan's comparator (wa != wb ? wa > wb : a < b) does.
FRUGAL_ROUTER_HD std::uint64_t expert_weight_key(std::int32_t expert, float weight) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(expert)) << 32) | ~order_key(weight);
}

// a + b as the host computes it, NaN bits included (see the top).
FRUGAL_ROUTER_HD float add_as_host(float a, float b) {
  namespace dm = quant::cuda::dm;
  const std::uint32_t ua = dm::f2u(a);
  const std::uint32_t ub = dm::f2u(b);
  if (dm::is_nan_bits(ua)) return dm::u2f(ua | 0x0040'0000u);
  if (dm::is_nan_bits(ub)) return dm::u2f(ub | 0x0040'0000u);
  const float r = a + b;
  return dm::is_nan_bits(dm::f2u(r)) ? dm::u2f(dm::kHostDefaultNan) : r;
}

// One term of combine_rows: acc + w * y, two roundings, the host's NaN bits.
FRUGAL_ROUTER_HD float combine_step(float acc, float w, float y) {
  return add_as_host(quant::cuda::dm::mul_as_host(y, w), acc);
}

}  // namespace frugal::router::cuda::scalar
