// Mixture-of-experts feed-forward: a gate Linear scores every expert per
// token, a selector picks k experts per token (or drops the slot), the
// output is the weighted sum of the chosen experts' FFN outputs. A
// Switch-style load-balancing loss pushes the gate toward even loads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "ffn_dense.hpp"
#include "linear.hpp"

namespace frugal_demo {

// What a selector sees for one MoE layer's forward pass.
template <class T>
struct RouteRequest {
  std::span<const T> logits;             // [tokens, experts], gate output
  std::span<const std::uint8_t> active;  // [tokens]; 0 = padding, never routed
  std::size_t tokens = 0;
  std::size_t experts = 0;
  std::size_t k = 0;
  std::size_t capacity = 0;  // max assignments per expert
  int layer = 0;             // which MoE layer asks (a router per layer)
};

// Fills choice[t * k + s] with an expert index or -1 (slot dropped). Each
// token's valid choices must be distinct; inactive tokens get all -1.
template <class T>
using ExpertSelector = std::function<void(const RouteRequest<T>&, std::span<std::int32_t> choice)>;

// The CPU reference: top-k by logit (lower index wins a tie), then, in
// token order and rank order within a token, an assignment beyond its
// expert's capacity is dropped.
template <class T>
void select_topk_with_capacity(const RouteRequest<T>& request, std::span<std::int32_t> choice);

struct MoeOptions {
  std::size_t experts = 4;
  std::size_t top_k = 2;
  // capacity = ceil(capacity_factor * active tokens * k / experts);
  // <= 0 means no limit.
  double capacity_factor = 1.25;
  double aux_coef = 0.01;
  // true: combine weights = softmax over the chosen experts' logits only.
  // false: the full softmax probability of each chosen expert (Switch);
  // worth it for k = 1, where renormalized weights are always 1 and the
  // gate would learn from the aux loss alone.
  bool renormalize = true;
};

template <class T>
class FfnMoe {
 public:
  // experts: one FfnParams per expert.
  FfnMoe(std::size_t d_model, std::size_t hidden, const MoeOptions& options, ParamView<T> gate_weight,
         const std::vector<FfnParams<T>>& experts, int layer = 0);

  void set_selector(ExpertSelector<T> selector);  // empty: the reference

  // x: [n, d_model]; active: [n] or empty (all active). The aux loss is
  // reported, not added: its gradient is part of backward().
  std::vector<T> forward(std::span<const T> x, std::span<const std::uint8_t> active = {});
  std::vector<T> backward(std::span<const T> d_out);

  T aux_loss() const { return aux_loss_; }
  [[nodiscard]] const std::vector<std::size_t>& loads() const { return loads_; }  // assignments per expert
  [[nodiscard]] std::size_t dropped() const { return dropped_; }                  // dropped slots of active tokens
  [[nodiscard]] std::span<const std::int32_t> choices() const { return choice_; }

  Linear<T>& gate() { return gate_; }
  FfnDense<T>& expert(std::size_t e) { return *experts_.at(e); }
  [[nodiscard]] std::size_t num_experts() const { return experts_.size(); }

 private:
  std::size_t d_model_;
  MoeOptions options_;
  int layer_;
  Linear<T> gate_;
  std::vector<std::unique_ptr<FfnDense<T>>> experts_;
  ExpertSelector<T> selector_;

  // Forward caches.
  std::size_t tokens_ = 0;
  std::size_t active_count_ = 0;
  std::vector<std::uint8_t> active_;
  std::vector<T> probs_;                         // [n, E] full softmax of the logits
  std::vector<std::int32_t> choice_;             // [n, k]
  std::vector<T> weights_;                       // [n, k] combine weights (0 if dropped)
  std::vector<std::vector<std::size_t>> slots_;  // per expert: t * k + s, token order
  std::vector<std::vector<T>> expert_out_;       // per expert: [rows, d_model]
  std::vector<std::size_t> loads_;
  std::size_t dropped_ = 0;
  T aux_loss_ = 0;
};

}  // namespace frugal_demo
