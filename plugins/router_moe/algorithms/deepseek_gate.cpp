#include "algorithms/deepseek_gate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "algorithms/losses.hpp"
#include "algorithms/parallel.hpp"
#include "algorithms/router_math.hpp"
#include "algorithms/softmax.hpp"
#include "algorithms/topk.hpp"

namespace frugal::router {
namespace {

constexpr int64_t kGateBlock = 128;  // tokens per unit of parallel work

void check(const Logits& logits, std::span<const float> bias, const DeepSeekGateOptions& o) {
  validate(logits);
  const int64_t E = logits.cols();
  auto fail = [](const std::string& what) { throw RouterError("deepseek_v3_gate: " + what); };
  if (o.groups < 1 || E % o.groups != 0) {
    fail("groups " + std::to_string(o.groups) + " does not divide the " + std::to_string(E) + " experts");
  }
  if (o.topk_groups < 1 || o.topk_groups > o.groups) {
    fail("topk_groups " + std::to_string(o.topk_groups) + " not in [1, " + std::to_string(o.groups) + "]");
  }
  const int64_t reachable = o.topk_groups * (E / o.groups);
  if (o.k < 1 || o.k > reachable) {
    fail("k " + std::to_string(o.k) + " not in [1, " + std::to_string(reachable) + "] (experts in the kept groups)");
  }
  if (!bias.empty() && static_cast<int64_t>(bias.size()) != E) {
    fail("bias has " + std::to_string(bias.size()) + " values for " + std::to_string(E) + " experts");
  }
  for (std::size_t e = 0; e < bias.size(); ++e) {
    if (!std::isfinite(bias[e])) fail("bias of expert " + std::to_string(e) + " is not finite");
  }
  if (!std::isfinite(o.route_scale)) fail("route_scale is not finite");
}

// Sets every expert outside the topk_groups best groups to -inf.
void mask_groups(std::span<float> biased, std::span<const float> scores, bool has_bias, int64_t groups,
                 std::span<float> group_score, std::span<int32_t> kept) {
  const std::size_t size = biased.size() / static_cast<std::size_t>(groups);
  for (std::size_t g = 0; g < static_cast<std::size_t>(groups); ++g) {
    const auto b = biased.subspan(g * size, size);
    if (!has_bias) {
      group_score[g] = *std::max_element(scores.begin() + static_cast<std::ptrdiff_t>(g * size),
                                         scores.begin() + static_cast<std::ptrdiff_t>((g + 1) * size));
    } else if (size == 1) {
      group_score[g] = b[0];
    } else {
      int32_t two[2];
      top_k(b, two);
      group_score[g] = b[static_cast<std::size_t>(two[0])] + b[static_cast<std::size_t>(two[1])];
    }
  }
  top_k(group_score, kept);
  std::sort(kept.begin(), kept.end());
  constexpr float kMasked = -std::numeric_limits<float>::infinity();
  std::size_t next = 0;  // walks the sorted kept groups
  for (std::size_t g = 0; g < static_cast<std::size_t>(groups); ++g) {
    if (next < kept.size() && static_cast<std::size_t>(kept[next]) == g) {
      ++next;
      continue;
    }
    std::fill_n(biased.begin() + static_cast<std::ptrdiff_t>(g * size), size, kMasked);
  }
}

}  // namespace

Routing deepseek_v3_gate(const Logits& logits, std::span<const float> bias, const DeepSeekGateOptions& o) {
  return deepseek_v3_route(logits, bias, o).routing;
}

DeepSeekGateResult deepseek_v3_route(const Logits& logits, std::span<const float> bias, const DeepSeekGateOptions& o) {
  check(logits, bias, o);
  const int64_t T = logits.rows();
  const int64_t E = logits.cols();
  const int64_t k = o.k;
  const bool has_bias = !bias.empty();
  const bool want_z = o.z_coef != 0.0f;
  DeepSeekGateResult out;
  out.routing = Routing{T, E, k, std::vector<int32_t>(static_cast<std::size_t>(T * k)),
                        std::vector<float>(static_cast<std::size_t>(T * k))};
  Routing& r = out.routing;
  const int64_t blocks = block_count(T, kGateBlock);
  std::vector<double> partial(static_cast<std::size_t>(blocks * E), 0.0);
  std::vector<float> lse(want_z ? static_cast<std::size_t>(T) : 0);

  parallel_blocks(T, kGateBlock, o.threads, [&](int64_t blk, int64_t begin, int64_t end) {
    std::vector<float> s(static_cast<std::size_t>(E)), b(static_cast<std::size_t>(E));
    std::vector<float> group_score(static_cast<std::size_t>(o.groups));
    std::vector<int32_t> kept(static_cast<std::size_t>(o.topk_groups));
    double* acc = partial.data() + blk * E;
    for (int64_t t = begin; t < end; ++t) {
      widen_row(logits, t, s);
      if (o.score == ScoreFunction::softmax) {
        const float z = softmax_row(s, s);
        if (want_z) lse[static_cast<std::size_t>(t)] = z;
      } else {
        if (want_z) lse[static_cast<std::size_t>(t)] = logsumexp_row(s);
        // exp(-x) overflows to +inf for x < ~-88.7: the score is then exactly 0.
        for (float& v : s) v = math::sigmoid_f32(v);
      }
      float total = 0.0f;
      for (const float v : s) total += v;
      // All-underflow sigmoid rows add nothing rather than 0 / 0.
      if (total > 0.0f) {
        const double inv = 1.0 / double{total};
        for (int64_t e = 0; e < E; ++e) acc[e] += double{s[static_cast<std::size_t>(e)]} * inv;
      }
      for (std::size_t e = 0; e < s.size(); ++e) b[e] = has_bias ? s[e] + bias[e] : s[e];
      if (o.groups > 1) mask_groups(b, s, has_bias, o.groups, group_score, kept);
      const auto idx =
          std::span<int32_t>(r.expert).subspan(static_cast<std::size_t>(t * k), static_cast<std::size_t>(k));
      top_k(b, idx);
      float* w = r.weight.data() + t * k;
      float sum = 0.0f;
      for (int64_t j = 0; j < k; ++j) {
        w[j] = s[static_cast<std::size_t>(idx[static_cast<std::size_t>(j)])];  // unbiased score
        sum += w[j];
      }
      const bool renorm = o.score == ScoreFunction::sigmoid;
      for (int64_t j = 0; j < k; ++j) w[j] = (renorm ? w[j] / (sum + kRenormEpsilon) : w[j]) * o.route_scale;
    }
  });

  out.prob_sum = add_blocks(partial, blocks, E);
  out.mean_prob = mean_prob_of(out.prob_sum, T);
  out.load.assign(static_cast<std::size_t>(E), 0);
  for (const int32_t e : r.expert) ++out.load[static_cast<std::size_t>(e)];
  out.aux_loss = load_balancing_loss(out.load, out.mean_prob, o.aux_coef);
  out.lse_square_sum = want_z ? square_sum(lse) : 0.0;
  out.z_loss = want_z ? z_loss_of_sum(out.lse_square_sum, T, o.z_coef) : 0.0f;
  return out;
}

}  // namespace frugal::router
