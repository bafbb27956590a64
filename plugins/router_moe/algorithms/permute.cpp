#include "algorithms/permute.hpp"

#include <cstring>
#include <string>

#include "algorithms/parallel.hpp"
#include "algorithms/row_sizes.hpp"
#include "algorithms/types.hpp"

namespace frugal::router {

template <class T>
void permute_rows(std::span<const int64_t> row_token, sdk::MatrixView<const T> x, sdk::MatrixView<T> out,
                  unsigned threads) {
  const int64_t hidden = check_row_views("permute", x, out);
  if (static_cast<int64_t>(row_token.size()) != out.rows()) {
    throw RouterError("permute: " + std::to_string(row_token.size()) + " row tokens for " + std::to_string(out.rows()) +
                      " output rows");
  }
  parallel_blocks(out.rows(), rows_per_block(hidden), threads, [&](int64_t, int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t t = row_token[static_cast<std::size_t>(r)];
      if (t < 0) continue;  // an unused row of a plan with drops
      if (t >= x.rows()) {
        throw RouterError("permute: row " + std::to_string(r) + " names token " + std::to_string(t) + " of " +
                          std::to_string(x.rows()));
      }
      std::memcpy(out.data() + r * out.row_stride(), x.data() + t * x.row_stride(),
                  static_cast<std::size_t>(hidden) * sizeof(T));
    }
  });
}

template void permute_rows<uint16_t>(std::span<const int64_t>, sdk::MatrixView<const uint16_t>,
                                     sdk::MatrixView<uint16_t>, unsigned);
template void permute_rows<float>(std::span<const int64_t>, sdk::MatrixView<const float>, sdk::MatrixView<float>,
                                  unsigned);

namespace {

template <class T>
void permute_plan(const DispatchPlan& plan, std::span<const T> x, int64_t hidden, std::span<T> out, unsigned threads) {
  check_row_sizes("permute", plan.tokens, plan.rows(), hidden, x.size(), out.size());
  permute_rows<T>(plan.row_token, sdk::MatrixView<const T>(x, plan.tokens, hidden),
                  sdk::MatrixView<T>(out, plan.rows(), hidden), threads);
}

}  // namespace

void permute_rows(const DispatchPlan& plan, std::span<const uint16_t> x, int64_t hidden, std::span<uint16_t> out,
                  unsigned threads) {
  permute_plan(plan, x, hidden, out, threads);
}

void permute_rows(const DispatchPlan& plan, std::span<const float> x, int64_t hidden, std::span<float> out,
                  unsigned threads) {
  permute_plan(plan, x, hidden, out, threads);
}

}  // namespace frugal::router
