#include "algorithms/topk_softmax.hpp"

#include <string>

#include "algorithms/losses.hpp"
#include "algorithms/parallel.hpp"
#include "algorithms/softmax.hpp"
#include "algorithms/topk.hpp"

namespace frugal::router {
namespace {

constexpr int64_t kSoftmaxBlock = 256;  // tokens per block: the unit of work and of partial sums

}  // namespace

TopkSoftmaxResult topk_softmax(const Logits& logits, const TopkSoftmaxOptions& options) {
  validate(logits);
  const int64_t T = logits.rows();
  const int64_t E = logits.cols();
  const int64_t k = options.k;
  if (k < 1 || k > E)
    throw RouterError("top-k softmax: k " + std::to_string(k) + " not in [1, " + std::to_string(E) + "]");

  TopkSoftmaxResult r;
  r.routing = Routing{T, E, k, std::vector<int32_t>(static_cast<std::size_t>(T * k)),
                      std::vector<float>(static_cast<std::size_t>(T * k))};
  std::vector<float> lse(static_cast<std::size_t>(T));
  const int64_t blocks = block_count(T, kSoftmaxBlock);
  std::vector<double> partial(static_cast<std::size_t>(blocks * E), 0.0);

  parallel_blocks(T, kSoftmaxBlock, options.threads, [&](int64_t b, int64_t begin, int64_t end) {
    std::vector<float> p(static_cast<std::size_t>(E));
    double* acc = partial.data() + b * E;
    for (int64_t t = begin; t < end; ++t) {
      widen_row(logits, t, p);
      lse[static_cast<std::size_t>(t)] = softmax_row(p, p);
      for (int64_t e = 0; e < E; ++e) acc[e] += p[static_cast<std::size_t>(e)];
      const auto idx =
          std::span<int32_t>(r.routing.expert).subspan(static_cast<std::size_t>(t * k), static_cast<std::size_t>(k));
      top_k(p, idx);
      float* w = r.routing.weight.data() + t * k;
      float sum = 0.0f;
      for (int64_t j = 0; j < k; ++j) {
        w[j] = p[static_cast<std::size_t>(idx[static_cast<std::size_t>(j)])];
        sum += w[j];
      }
      if (options.renormalize) {
        for (int64_t j = 0; j < k; ++j) w[j] /= sum;  // sum >= p_max >= 1/E: never zero
      }
    }
  });

  r.prob_sum = add_blocks(partial, blocks, E);
  r.mean_prob = mean_prob_of(r.prob_sum, T);
  r.load.assign(static_cast<std::size_t>(E), 0);
  for (const int32_t e : r.routing.expert) ++r.load[static_cast<std::size_t>(e)];
  r.aux_loss = load_balancing_loss(r.load, r.mean_prob, options.aux_coef);
  r.lse_square_sum = square_sum(lse);
  r.z_loss = z_loss_of_sum(r.lse_square_sum, T, options.z_coef);
  return r;
}

}  // namespace frugal::router
