#include "algorithms/permute.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "algorithms/parallel.hpp"
#include "algorithms/row_sizes.hpp"

namespace frugal::router {
namespace {

template <class T>
void permute(const DispatchPlan& plan, std::span<const T> x, int64_t hidden, std::span<T> out, unsigned threads) {
  check_row_sizes("permute", plan.tokens, plan.rows(), hidden, x.size(), out.size());
  const int64_t block = rows_per_block(hidden);
  parallel_blocks(plan.rows(), block, threads, [&](int64_t, int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t t = plan.row_token[static_cast<std::size_t>(r)];
      std::memcpy(out.data() + r * hidden, x.data() + t * hidden, static_cast<std::size_t>(hidden) * sizeof(T));
    }
  });
}

}  // namespace

void permute_rows(const DispatchPlan& plan, std::span<const uint16_t> x, int64_t hidden, std::span<uint16_t> out,
                  unsigned threads) {
  permute(plan, x, hidden, out, threads);
}

void permute_rows(const DispatchPlan& plan, std::span<const float> x, int64_t hidden, std::span<float> out,
                  unsigned threads) {
  permute(plan, x, hidden, out, threads);
}

}  // namespace frugal::router
