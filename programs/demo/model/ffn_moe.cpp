#include "ffn_moe.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace frugal_demo {

template <class T>
void select_topk_with_capacity(const RouteRequest<T>& request, std::span<std::int32_t> choice) {
  const std::size_t experts = request.experts;
  const std::size_t k = request.k;
  std::vector<std::size_t> used(experts, 0);
  std::vector<std::size_t> order(experts);
  for (std::size_t t = 0; t < request.tokens; ++t) {
    std::int32_t* out = choice.data() + t * k;
    std::fill(out, out + k, -1);
    if (!request.active.empty() && request.active[t] == 0) continue;
    const T* logits = request.logits.data() + t * experts;
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::partial_sort(
        order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
        [logits](std::size_t a, std::size_t b) { return logits[a] > logits[b] || (logits[a] == logits[b] && a < b); });
    for (std::size_t s = 0; s < k; ++s) {
      const std::size_t e = order[s];
      if (used[e] < request.capacity) {
        ++used[e];
        out[s] = static_cast<std::int32_t>(e);
      }
    }
  }
}

template <class T>
FfnMoe<T>::FfnMoe(std::size_t d_model, std::size_t hidden, const MoeOptions& options, ParamView<T> gate_weight,
                  const std::vector<FfnParams<T>>& experts, int layer)
    : d_model_(d_model), options_(options), layer_(layer), gate_(d_model, options.experts, gate_weight, {}) {
  if (options.experts == 0 || options.top_k == 0 || options.top_k > options.experts)
    throw std::invalid_argument("FfnMoe: need 1 <= top_k <= experts");
  if (experts.size() != options.experts) throw std::invalid_argument("FfnMoe: one FfnParams per expert");
  for (const FfnParams<T>& p : experts) experts_.push_back(std::make_unique<FfnDense<T>>(d_model, hidden, p));
}

template <class T>
void FfnMoe<T>::set_selector(ExpertSelector<T> selector) {
  selector_ = std::move(selector);
}

template <class T>
std::vector<T> FfnMoe<T>::forward(std::span<const T> x, std::span<const std::uint8_t> active) {
  const std::size_t n = x.size() / d_model_;
  const std::size_t experts = options_.experts;
  const std::size_t k = options_.top_k;
  if (!active.empty() && active.size() != n) throw std::invalid_argument("FfnMoe: active mask size mismatch");
  tokens_ = n;
  active_.assign(n, 1);
  if (!active.empty()) std::copy(active.begin(), active.end(), active_.begin());
  active_count_ =
      static_cast<std::size_t>(std::count_if(active_.begin(), active_.end(), [](auto a) { return a != 0; }));

  const std::vector<T> logits = gate_.forward(x);
  probs_.resize(n * experts);
  for (std::size_t t = 0; t < n; ++t) {
    const T* l = logits.data() + t * experts;
    T* p = probs_.data() + t * experts;
    const T mx = *std::max_element(l, l + experts);
    T sum = 0;
    for (std::size_t e = 0; e < experts; ++e) sum += (p[e] = std::exp(l[e] - mx));
    for (std::size_t e = 0; e < experts; ++e) p[e] /= sum;
  }

  RouteRequest<T> request;
  request.logits = logits;
  request.active = active_;
  request.tokens = n;
  request.experts = experts;
  request.k = k;
  request.layer = layer_;
  if (options_.capacity_factor > 0) {
    const double want =
        std::ceil(options_.capacity_factor * static_cast<double>(active_count_ * k) / static_cast<double>(experts));
    request.capacity = std::max<std::size_t>(1, static_cast<std::size_t>(want));
  } else {
    request.capacity = std::max<std::size_t>(1, active_count_ * k);
  }
  choice_.assign(n * k, -1);
  if (selector_) {
    selector_(request, choice_);
  } else {
    select_topk_with_capacity(request, std::span<std::int32_t>(choice_));
  }

  // Check the selector's answer (it may come from a plugin), then build
  // the combine weights and per-expert slot lists.
  weights_.assign(n * k, T(0));
  slots_.assign(experts, {});
  loads_.assign(experts, 0);
  dropped_ = 0;
  for (std::size_t t = 0; t < n; ++t) {
    const std::int32_t* c = choice_.data() + t * k;
    const T* l = logits.data() + t * experts;
    T mx = -std::numeric_limits<T>::infinity();
    for (std::size_t s = 0; s < k; ++s) {
      if (c[s] < -1 || c[s] >= static_cast<std::int32_t>(experts))
        throw std::out_of_range("FfnMoe: selector chose an expert out of range");
      if (c[s] >= 0 && active_[t] == 0) throw std::logic_error("FfnMoe: selector routed a padding token");
      for (std::size_t s2 = 0; s2 < s; ++s2)
        if (c[s] >= 0 && c[s2] == c[s]) throw std::logic_error("FfnMoe: selector chose an expert twice");
      if (c[s] >= 0) mx = std::max(mx, l[c[s]]);
      if (c[s] < 0 && active_[t] != 0) ++dropped_;
    }
    T* w = weights_.data() + t * k;
    if (options_.renormalize) {
      T sum = 0;
      for (std::size_t s = 0; s < k; ++s)
        if (c[s] >= 0) sum += (w[s] = std::exp(l[c[s]] - mx));
      for (std::size_t s = 0; s < k; ++s)
        if (c[s] >= 0) w[s] /= sum;
    } else {
      for (std::size_t s = 0; s < k; ++s)
        if (c[s] >= 0) w[s] = probs_[t * experts + static_cast<std::size_t>(c[s])];
    }
    for (std::size_t s = 0; s < k; ++s)
      if (c[s] >= 0) slots_[static_cast<std::size_t>(c[s])].push_back(t * k + s);
  }

  std::vector<T> y(n * d_model_, T(0));
  expert_out_.assign(experts, {});
  std::vector<T> gathered;
  for (std::size_t e = 0; e < experts; ++e) {
    const std::vector<std::size_t>& slots = slots_[e];
    loads_[e] = slots.size();
    if (slots.empty()) continue;
    gathered.resize(slots.size() * d_model_);
    for (std::size_t r = 0; r < slots.size(); ++r) {
      const std::size_t t = slots[r] / k;
      std::copy_n(x.begin() + static_cast<std::ptrdiff_t>(t * d_model_), d_model_,
                  gathered.begin() + static_cast<std::ptrdiff_t>(r * d_model_));
    }
    expert_out_[e] = experts_[e]->forward(gathered);
    for (std::size_t r = 0; r < slots.size(); ++r) {
      const std::size_t t = slots[r] / k;
      const T w = weights_[slots[r]];
      const T* o = expert_out_[e].data() + r * d_model_;
      T* yt = y.data() + t * d_model_;
      for (std::size_t j = 0; j < d_model_; ++j) yt[j] += w * o[j];
    }
  }

  // aux = coef * E * sum_e f_e * P_e; f_e = share of the assignments (a
  // constant for the gradient: it is a count), P_e = mean gate probability
  // over the active tokens (differentiable).
  aux_loss_ = 0;
  const std::size_t assigned = std::accumulate(loads_.begin(), loads_.end(), std::size_t{0});
  if (options_.aux_coef > 0 && assigned > 0 && active_count_ > 0) {
    T total = 0;
    for (std::size_t e = 0; e < experts; ++e) {
      T mean_p = 0;
      for (std::size_t t = 0; t < n; ++t)
        if (active_[t] != 0) mean_p += probs_[t * experts + e];
      mean_p /= static_cast<T>(active_count_);
      total += static_cast<T>(loads_[e]) / static_cast<T>(assigned) * mean_p;
    }
    aux_loss_ = static_cast<T>(options_.aux_coef) * static_cast<T>(experts) * total;
  }
  return y;
}

template <class T>
std::vector<T> FfnMoe<T>::backward(std::span<const T> d_out) {
  const std::size_t n = tokens_;
  const std::size_t experts = options_.experts;
  const std::size_t k = options_.top_k;
  if (d_out.size() != n * d_model_) throw std::invalid_argument("FfnMoe::backward: size mismatch");
  std::vector<T> dx(n * d_model_, T(0));
  std::vector<T> d_weights(n * k, T(0));
  std::vector<T> scattered;
  for (std::size_t e = 0; e < experts; ++e) {
    const std::vector<std::size_t>& slots = slots_[e];
    if (slots.empty()) continue;
    scattered.resize(slots.size() * d_model_);
    for (std::size_t r = 0; r < slots.size(); ++r) {
      const std::size_t t = slots[r] / k;
      const T w = weights_[slots[r]];
      const T* dy = d_out.data() + t * d_model_;
      const T* o = expert_out_[e].data() + r * d_model_;
      T dw = 0;
      for (std::size_t j = 0; j < d_model_; ++j) {
        scattered[r * d_model_ + j] = w * dy[j];
        dw += dy[j] * o[j];
      }
      d_weights[slots[r]] = dw;
    }
    const std::vector<T> d_in = experts_[e]->backward(scattered);
    for (std::size_t r = 0; r < slots.size(); ++r) {
      const std::size_t t = slots[r] / k;
      T* dxt = dx.data() + t * d_model_;
      const T* d = d_in.data() + r * d_model_;
      for (std::size_t j = 0; j < d_model_; ++j) dxt[j] += d[j];
    }
  }

  // Combine weights -> logits. Both weightings are q_j over a set S (the
  // chosen experts renormalized, or all experts), with
  // dl_j = q_j (g_j - sum_i q_i g_i), g_j = dL/dw of expert j (0 if unchosen).
  std::vector<T> d_logits(n * experts, T(0));
  std::vector<T> g(experts);
  for (std::size_t t = 0; t < n; ++t) {
    const std::int32_t* c = choice_.data() + t * k;
    const T* w = weights_.data() + t * k;
    T* dl = d_logits.data() + t * experts;
    T dot = 0;
    for (std::size_t s = 0; s < k; ++s)
      if (c[s] >= 0) dot += w[s] * d_weights[t * k + s];
    if (options_.renormalize) {
      for (std::size_t s = 0; s < k; ++s)
        if (c[s] >= 0) dl[c[s]] += w[s] * (d_weights[t * k + s] - dot);
    } else {
      const T* p = probs_.data() + t * experts;
      std::fill(g.begin(), g.end(), T(0));
      for (std::size_t s = 0; s < k; ++s)
        if (c[s] >= 0) g[static_cast<std::size_t>(c[s])] = d_weights[t * k + s];
      for (std::size_t e = 0; e < experts; ++e) dl[e] += p[e] * (g[e] - dot);
    }
  }

  // aux: d aux / d p_te = coef * E * f_e / active, through the softmax.
  const std::size_t assigned = std::accumulate(loads_.begin(), loads_.end(), std::size_t{0});
  if (options_.aux_coef > 0 && assigned > 0 && active_count_ > 0) {
    for (std::size_t e = 0; e < experts; ++e)
      g[e] = static_cast<T>(options_.aux_coef) * static_cast<T>(experts) * static_cast<T>(loads_[e]) /
             (static_cast<T>(assigned) * static_cast<T>(active_count_));
    for (std::size_t t = 0; t < n; ++t) {
      if (active_[t] == 0) continue;
      const T* p = probs_.data() + t * experts;
      T dot = 0;
      for (std::size_t e = 0; e < experts; ++e) dot += p[e] * g[e];
      T* dl = d_logits.data() + t * experts;
      for (std::size_t e = 0; e < experts; ++e) dl[e] += p[e] * (g[e] - dot);
    }
  }

  const std::vector<T> d_gate = gate_.backward(d_logits);
  for (std::size_t i = 0; i < dx.size(); ++i) dx[i] += d_gate[i];
  return dx;
}

template void select_topk_with_capacity<float>(const RouteRequest<float>&, std::span<std::int32_t>);
template void select_topk_with_capacity<double>(const RouteRequest<double>&, std::span<std::int32_t>);
template class FfnMoe<float>;
template class FfnMoe<double>;

}  // namespace frugal_demo
