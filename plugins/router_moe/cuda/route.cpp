// route(): checks the request, then queues the steps (steps.hpp) on the
// caller's stream:
//
//   token choice   bias upload (deepseek_v3) -> selection -> P_i partial
//                  sums -> dispatch plan (which counts expert_demand) ->
//                  mean_prob and losses;
//   expert choice  scores -> P_i partial sums -> each expert's tokens and
//                  the token index -> mean_prob (losses 0, as on the CPU).
//
// Scratch memory is stream-ordered (cudaMallocAsync / cudaFreeAsync), the
// bias travels in kernel parameters: nothing here waits for the device.
#include <cstdint>
#include <limits>
#include <string>

#include "algorithms/types.hpp"
#include "cuda/cuda_ops.hpp"
#include "cuda/cuda_support.hpp"
#include "cuda/steps.hpp"

namespace frugal::router::cuda {
namespace {

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

[[noreturn]] void bad(const std::string& what) { throw RouterError("router_moe CUDA route: " + what); }

// The plan's row count for the request (frugal_router_plan_shape's formulas).
std::int64_t expected_rows(const RouteRequest& q) {
  const std::int64_t experts = q.logits.cols();
  if (q.kind == RouterKind::expert_choice) return experts * q.capacity;
  const std::int64_t slots = q.logits.rows() * q.k;
  if (q.policy == DropPolicy::dropless) return slots;
  return slots < experts * q.capacity ? slots : experts * q.capacity;
}

// What the kernels rely on to keep every index in range; the CPU path's
// checks, minus the logits' finiteness (not checked on the device).
void check(const RouteRequest& q, const DevicePlan& p) {
  const std::int64_t tokens = q.logits.rows();
  const std::int64_t experts = q.logits.cols();
  if (q.logits.data() == nullptr) bad("logits are null");
  if (tokens < 1 || tokens > kInt32Max) bad("tokens " + std::to_string(tokens) + " not in [1, 2^31)");
  if (experts < 1 || experts > kInt32Max) bad("experts " + std::to_string(experts) + " not in [1, 2^31)");
  if (q.logits.row_stride() < experts) bad("logit row stride is below the experts");
  const bool token_choice = q.kind != RouterKind::expert_choice;
  if (token_choice) {
    if (q.k < 1 || q.k > experts) bad("k " + std::to_string(q.k) + " not in [1, experts]");
    if (tokens * q.k > kInt32Max) bad("tokens * k reaches 2^31");
    if (q.policy != DropPolicy::dropless && q.capacity < 1) bad("a drop policy needs a capacity >= 1");
    if (p.expert_ids == nullptr || p.weights == nullptr || p.dropped == nullptr || p.slot_row == nullptr) {
      bad("a token-choice plan needs expert_ids, weights, dropped and slot_row");
    }
  } else if (q.capacity < 1 || q.capacity > tokens || experts * q.capacity > kInt32Max) {
    bad("expert-choice capacity " + std::to_string(q.capacity) + " not in [1, tokens] or too many rows");
  }
  if (q.kind == RouterKind::deepseek_v3) {
    if (q.groups < 1 || experts % q.groups != 0) bad("groups must divide the experts");
    if (q.topk_groups < 1 || q.topk_groups > q.groups) bad("topk_groups not in [1, groups]");
    if (q.k > q.topk_groups * (experts / q.groups)) bad("k exceeds the experts of the kept groups");
  }
  if (p.expert_offsets == nullptr || p.expert_demand == nullptr || p.row_token == nullptr || p.row_weight == nullptr ||
      p.token_offsets == nullptr || p.token_rows == nullptr || p.mean_prob == nullptr || p.losses == nullptr) {
    bad("a plan tensor is null");
  }
  if (p.max_rows != expected_rows(q)) {
    bad("the plan has " + std::to_string(p.max_rows) + " rows, the route needs " + std::to_string(expected_rows(q)));
  }
}

}  // namespace

void route(const RouteRequest& q, const DevicePlan& plan) {
  check(q, plan);
  const detail::OnDeviceOf on_device(q.logits.data(), "logits");
  const auto stream = static_cast<cudaStream_t>(q.stream);
  const Logits& logits = q.logits;
  const std::int64_t T = logits.rows();
  const std::int64_t E = logits.cols();
  const bool deepseek = q.kind == RouterKind::deepseek_v3;
  const bool token_choice = q.kind != RouterKind::expert_choice;
  // The CPU routers' token blocks of partial sums.
  const std::int64_t block = deepseek ? 128 : 256;
  const std::int64_t blocks = (T + block - 1) / block;
  // topk_softmax always reports z_loss(lse, z_coef); deepseek_v3 only with a
  // coefficient; expert choice never.
  const bool want_z = q.kind == RouterKind::topk_softmax || (deepseek && q.z_coef != 0.0f);
  const bool has_bias = deepseek && q.bias != nullptr;

  const auto count = [](std::int64_t n) { return static_cast<std::size_t>(n); };
  detail::StreamScratch scratch(stream);
  steps::TokenStats stats;
  double* partial = nullptr;
  float* bias = nullptr;
  float* scores_t = nullptr;  // expert choice: S, expert-major
  scratch.add(stats.max, count(T));
  scratch.add(stats.inv, count(T));
  if (want_z) scratch.add(stats.lse, count(T));
  if (deepseek) scratch.add(stats.total_inv, count(T));
  scratch.add(partial, count(blocks * E));
  if (has_bias) scratch.add(bias, count(E));
  if (!token_choice) scratch.add(scores_t, count(E * T));
  scratch.allocate();

  steps::ProbTerm term = steps::ProbTerm::softmax;
  switch (q.kind) {
    case RouterKind::topk_softmax:
      steps::select_topk_softmax(logits, q.k, q.renormalize, plan.expert_ids, plan.weights, stats, stream);
      break;
    case RouterKind::deepseek_v3:
      if (has_bias) steps::upload_floats(q.bias, E, bias, stream);
      steps::select_deepseek(logits,
                             {.score = q.score,
                              .k = q.k,
                              .groups = q.groups,
                              .topk_groups = q.topk_groups,
                              .route_scale = q.route_scale,
                              .bias = bias,
                              .want_z = want_z},
                             plan.expert_ids, plan.weights, stats, stream);
      term =
          q.score == ScoreFunction::sigmoid ? steps::ProbTerm::sigmoid_normalised : steps::ProbTerm::softmax_normalised;
      break;
    case RouterKind::expert_choice: steps::expert_choice_scores(logits, scores_t, stats, stream); break;
  }
  steps::mean_prob_partials(logits, term, block, stats, partial, stream);
  if (token_choice) {
    steps::token_choice_plan({plan.expert_ids, plan.weights, T, E, q.k}, q.policy, q.capacity, plan, stream);
  } else {
    steps::expert_choice_plan(scores_t, T, E, q.capacity, plan, stream);
  }
  steps::finish_stats({.partial = partial,
                       .blocks = blocks,
                       .tokens = T,
                       .experts = E,
                       .demand = plan.expert_demand,
                       .aux_coef = q.aux_coef,
                       .aux = token_choice,
                       .lse = stats.lse,
                       .z_coef = q.z_coef},
                      plan.mean_prob, plan.losses, stream);
}

}  // namespace frugal::router::cuda
