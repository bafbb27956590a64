#include "algorithms/permute.hpp"

#include <string>
#include <type_traits>
#include <vector>

#include "algorithms/parallel.hpp"
#include "algorithms/row_sizes.hpp"
#include "algorithms/types.hpp"
#include "formats/half.hpp"

namespace frugal::router {

namespace {

// Widen / Narrow map the storage type to fp32 and back (identity for fp32).
template <class T, class Widen, class Narrow>
void combine(std::span<const int64_t> token_offsets, std::span<const int64_t> token_rows,
             std::span<const float> row_weight, sdk::MatrixView<const T> y, sdk::MatrixView<T> out, unsigned threads,
             Widen widen, Narrow narrow) {
  const int64_t hidden = check_row_views("combine", out, y);
  if (static_cast<int64_t>(token_offsets.size()) != out.rows() + 1) {
    throw RouterError("combine: " + std::to_string(token_offsets.size()) + " token offsets for " +
                      std::to_string(out.rows()) + " output rows");
  }
  const auto H = static_cast<std::size_t>(hidden);
  parallel_blocks(out.rows(), rows_per_block(hidden), threads, [&](int64_t, int64_t begin, int64_t end) {
    std::vector<float> acc(H);
    for (int64_t t = begin; t < end; ++t) {
      std::fill(acc.begin(), acc.end(), 0.0f);
      const int64_t first = token_offsets[static_cast<std::size_t>(t)];
      const int64_t last = token_offsets[static_cast<std::size_t>(t) + 1];
      if (first < 0 || last < first || last > static_cast<int64_t>(token_rows.size())) {
        throw RouterError("combine: token " + std::to_string(t) + " has rows [" + std::to_string(first) + ", " +
                          std::to_string(last) + ") of " + std::to_string(token_rows.size()));
      }
      for (int64_t i = first; i < last; ++i) {
        const int64_t r = token_rows[static_cast<std::size_t>(i)];
        if (r < 0 || r >= y.rows() || r >= static_cast<int64_t>(row_weight.size())) {
          throw RouterError("combine: token " + std::to_string(t) + " names row " + std::to_string(r) + " of " +
                            std::to_string(y.rows()));
        }
        const float w = row_weight[static_cast<std::size_t>(r)];
        const T* src = y.data() + r * y.row_stride();
        for (std::size_t h = 0; h < H; ++h) acc[h] += w * widen(src[h]);
      }
      T* dst = out.data() + t * out.row_stride();
      for (std::size_t h = 0; h < H; ++h) dst[h] = narrow(acc[h]);
    }
  });
}

}  // namespace

template <class T>
void combine_rows(std::span<const int64_t> token_offsets, std::span<const int64_t> token_rows,
                  std::span<const float> row_weight, sdk::MatrixView<const T> y, sdk::MatrixView<T> out,
                  unsigned threads) {
  if constexpr (std::is_same_v<T, float>) {
    auto same = [](float v) { return v; };
    combine(token_offsets, token_rows, row_weight, y, out, threads, same, same);
  } else {
    // Lambdas, not function pointers: the conversions must inline for the
    // inner loop to vectorize.
    combine(
        token_offsets, token_rows, row_weight, y, out, threads, [](uint16_t v) { return quant::bf16_to_fp32(v); },
        [](float v) { return quant::fp32_to_bf16(v); });
  }
}

template void combine_rows<float>(std::span<const int64_t>, std::span<const int64_t>, std::span<const float>,
                                  sdk::MatrixView<const float>, sdk::MatrixView<float>, unsigned);
template void combine_rows<uint16_t>(std::span<const int64_t>, std::span<const int64_t>, std::span<const float>,
                                     sdk::MatrixView<const uint16_t>, sdk::MatrixView<uint16_t>, unsigned);

void combine_rows(const DispatchPlan& plan, std::span<const float> y, int64_t hidden, std::span<float> out,
                  unsigned threads) {
  check_row_sizes("combine", plan.tokens, plan.rows(), hidden, out.size(), y.size());
  combine_rows<float>(plan.token_offsets, plan.token_rows, plan.row_weight,
                      sdk::MatrixView<const float>(y, plan.rows(), hidden),
                      sdk::MatrixView<float>(out, plan.tokens, hidden), threads);
}

void combine_rows(const DispatchPlan& plan, std::span<const uint16_t> y, int64_t hidden, std::span<uint16_t> out,
                  unsigned threads) {
  check_row_sizes("combine", plan.tokens, plan.rows(), hidden, out.size(), y.size());
  combine_rows<uint16_t>(plan.token_offsets, plan.token_rows, plan.row_weight,
                         sdk::MatrixView<const uint16_t>(y, plan.rows(), hidden),
                         sdk::MatrixView<uint16_t>(out, plan.tokens, hidden), threads);
}

}  // namespace frugal::router
