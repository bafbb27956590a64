// Moving activation rows between token order [tokens, hidden] and the plan's
// expert-major order [rows, hidden], and back.
//
// Row r of a buffer starts at element r * hidden, computed in int64 (rows *
// hidden passes 2^31 for real MoE layers). Work is split over fixed blocks
// of rows (see parallel.hpp), so every thread count gives identical bytes.
#pragma once

#include <cstdint>
#include <span>

#include "algorithms/dispatch_plan.hpp"
#include "frugal/sdk/tensor_view.hpp"

namespace frugal::router {

// out[r] = x[row_token[r]] for every row r. bf16 rows are uint16 bit
// patterns (copied, never converted). Sizes: x tokens * hidden, out
// rows * hidden; a mismatch throws RouterError.
void permute_rows(const DispatchPlan& plan, std::span<const uint16_t> x, int64_t hidden, std::span<uint16_t> out,
                  unsigned threads = 0);
void permute_rows(const DispatchPlan& plan, std::span<const float> x, int64_t hidden, std::span<float> out,
                  unsigned threads = 0);

// out[t] = sum over token t's rows r, in token_rows order, of row_weight[r] *
// y[r], accumulated in fp32 starting from 0; a token with no rows (all
// dropped) gets zeros. The bf16 variant reads bf16 rows and rounds the fp32
// sum to bf16 once (nearest even). Sizes: y rows * hidden, out tokens * hidden.
void combine_rows(const DispatchPlan& plan, std::span<const float> y, int64_t hidden, std::span<float> out,
                  unsigned threads = 0);
void combine_rows(const DispatchPlan& plan, std::span<const uint16_t> y, int64_t hidden, std::span<uint16_t> out,
                  unsigned threads = 0);

// The same moves on the SDK's 2-D views, with row strides (in elements,
// >= hidden), as the plugin receives its tensors. Both views have hidden
// columns. T is uint16_t (bf16 bits) or float.

// out[r] = x[row_token[r]] for every r with row_token[r] >= 0 (rows with -1
// are unused plan rows, left untouched). Throws RouterError for a token out
// of range or mismatched sizes.
template <class T>
void permute_rows(std::span<const int64_t> row_token, sdk::MatrixView<const T> x, sdk::MatrixView<T> out,
                  unsigned threads = 0);

// out[t] = sum over token_rows[token_offsets[t] .. token_offsets[t + 1]) of
// row_weight[r] * y[r] (combine_rows' arithmetic); every row index must be
// below y.rows().
template <class T>
void combine_rows(std::span<const int64_t> token_offsets, std::span<const int64_t> token_rows,
                  std::span<const float> row_weight, sdk::MatrixView<const T> y, sdk::MatrixView<T> out,
                  unsigned threads = 0);

}  // namespace frugal::router
