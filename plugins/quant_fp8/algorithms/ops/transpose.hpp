// The transposed copy of a quantized matrix (output_t): dst[c][r] =
// src[r][c] over one-byte codes, cache-blocked and multi-threaded. Internal
// to ops/.
#pragma once

#include "ops/quant_op.hpp"

namespace frugal::quant::ops::detail {

// src: [rows, cols], dst: [cols, rows], both one-byte elements.
void transpose_codes(const Matrix& src, const Matrix& dst, unsigned threads);

}  // namespace frugal::quant::ops::detail
