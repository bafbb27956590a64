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

}  // namespace frugal::router
