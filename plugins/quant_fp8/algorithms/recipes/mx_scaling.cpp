#include "recipes/mx_scaling.hpp"

#include <cmath>

#include "recipes/amax.hpp"
#include "recipes/e8m0.hpp"
#include "recipes/scale_from_amax.hpp"

namespace frugal::quant::recipes {

uint8_t mx_scale_code(float amax, float fp8_max) {
  check_fp8_max(fp8_max, "mx_scale_code");
  if (!std::isfinite(amax)) return kE8M0Nan;
  if (!(amax > 0.0f)) return kE8M0One;
  const double a = amax;
  const double m = fp8_max;
  // First guess: ceil(log2(a / m)) from the exponent of the (rounded)
  // quotient; the loops below settle it exactly, since m * 2^k is exact in
  // double for any k used here.
  int e = 0;
  const double frac = std::frexp(a / m, &e);
  int k = frac == 0.5 ? e - 1 : e;
  while (a > std::ldexp(m, k)) ++k;
  while (a <= std::ldexp(m, k - 1)) --k;
  return e8m0_from_exponent(k);
}

MxScales mx_scales(const sdk::MatrixView<const float>& x, float fp8_max) {
  check_fp8_max(fp8_max, "mx_scales");
  MxScales out;
  out.amax = amax_per_block(x, kMxBlock);
  out.grid_rows = static_cast<std::size_t>(x.rows());
  out.grid_cols = block_count(static_cast<std::size_t>(x.cols()), kMxBlock.cols);
  out.e8m0.resize(out.amax.size());
  for (std::size_t i = 0; i < out.amax.size(); ++i) out.e8m0[i] = mx_scale_code(out.amax[i], fp8_max);
  return out;
}

}  // namespace frugal::quant::recipes
