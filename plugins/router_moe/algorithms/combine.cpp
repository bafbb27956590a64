#include "algorithms/permute.hpp"

#include <vector>

#include "algorithms/parallel.hpp"
#include "algorithms/row_sizes.hpp"
#include "algorithms/types.hpp"
#include "formats/half.hpp"

namespace frugal::router {

namespace {

// Widen / Narrow map the storage type to fp32 and back (identity for fp32).
template <class T, class Widen, class Narrow>
void combine(const DispatchPlan& plan, std::span<const T> y, int64_t hidden, std::span<T> out, unsigned threads,
             Widen widen, Narrow narrow) {
  check_row_sizes("combine", plan.tokens, plan.rows(), hidden, out.size(), y.size());
  const auto H = static_cast<std::size_t>(hidden);
  parallel_blocks(plan.tokens, rows_per_block(hidden), threads, [&](int64_t, int64_t begin, int64_t end) {
    std::vector<float> acc(H);
    for (int64_t t = begin; t < end; ++t) {
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int64_t i = plan.token_offsets[static_cast<std::size_t>(t)];
           i < plan.token_offsets[static_cast<std::size_t>(t) + 1]; ++i) {
        const int64_t r = plan.token_rows[static_cast<std::size_t>(i)];
        const float w = plan.row_weight[static_cast<std::size_t>(r)];
        const T* src = y.data() + r * hidden;
        for (std::size_t h = 0; h < H; ++h) acc[h] += w * widen(src[h]);
      }
      T* dst = out.data() + t * hidden;
      for (std::size_t h = 0; h < H; ++h) dst[h] = narrow(acc[h]);
    }
  });
}

}  // namespace

void combine_rows(const DispatchPlan& plan, std::span<const float> y, int64_t hidden, std::span<float> out,
                  unsigned threads) {
  auto same = [](float v) { return v; };
  combine(plan, y, hidden, out, threads, same, same);
}

void combine_rows(const DispatchPlan& plan, std::span<const uint16_t> y, int64_t hidden, std::span<uint16_t> out,
                  unsigned threads) {
  // Lambdas, not function pointers: the conversions must inline for the
  // inner loop to vectorize.
  combine(
      plan, y, hidden, out, threads, [](uint16_t v) { return quant::bf16_to_fp32(v); },
      [](float v) { return quant::fp32_to_bf16(v); });
}

}  // namespace frugal::router
